import JobrunCore

/// `--require-digests`: for CI that must prove every file, a slice that declares no digest is an
/// error at the slice, like any other manifest mistake (every one reported at once).
enum DigestRequirement {
    static func check(_ resources: [Resource], into collector: inout DiagnosticCollector) {
        for r in resources {
            for s in r.slices {
                switch s.integrity {
                case .digest:
                    continue
                case .sizeOnly:
                    collector.error("slice '\(s.path)' declares a size but no digest; --require-digests needs a digest", at: s.location)
                case .unverified:
                    collector.error("slice '\(s.path)' declares neither a digest nor a size; --require-digests needs a digest", at: s.location)
                }
            }
        }
    }
}
