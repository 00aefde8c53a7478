import JobrunCore
public import JobrunManifest
public import JobrunVerify

/// Renders a ``MirrorVerification`` for people (sigil lines), for programs (JSON) and for CI (JUnit).
public enum VerifyReports {
    /// The stable summary line: `Verify: 598 ok, 1 mismatched, 1 missing, 0 errors.`, with
    /// `, 3 extra` before the period when extra files were looked for (`--extra`).
    public static func summaryLine(_ v: MirrorVerification) -> String {
        let c = v.counts
        let extra = v.extraFiles.map { ", \($0.count) extra" } ?? ""
        return "Verify: \(c.ok) ok, \(c.mismatched) mismatched, \(c.missing) missing, \(c.errors) error\(c.errors == 1 ? "" : "s")\(extra)."
    }

    /// One line per slice (`=` ok, `*` differs, `-` missing, `!` error), `+` per extra file, then the
    /// summary. With `problemsOnly`, `=` lines are left out.
    public static func text(_ v: MirrorVerification, problemsOnly: Bool) -> String {
        var out = ""
        for entry in v.entries {
            for (s, check) in zip(entry.resource.slices, entry.checks) {
                let path = entry.resource.filePath(of: s)
                switch check {
                case .ok:
                    if !problemsOnly { out += "= \(path)\n" }
                case .missing:
                    out += "- \(path): missing\n"
                case .sizeMismatch(let expected, let actual):
                    out += "* \(path): size differs: expected \(expected) bytes, actual \(actual)\n"
                case .digestMismatch(_, let actual, _):
                    out += "* \(path): \(Digest.mismatchDescription(expected: s.digests, actual: actual))\n"
                case .notRegularFile(let bad, let kind):
                    out += "! \(path): '\(bad)' is a \(kind), not a regular file (jobrun never follows links)\n"
                case .ioError(let bad, _, let message):
                    out += "! \(path): cannot read '\(bad)': \(message)\n"
                }
            }
        }
        for extra in v.extraFiles ?? [] { out += "+ \(extra)\n" }
        for e in v.scanErrors { out += "! \(e.path): cannot list the folder: \(e.message)\n" }
        out += summaryLine(v) + "\n"
        return out
    }

    static func status(_ check: FileCheck) -> String {
        switch check {
        case .ok: "ok"
        case .missing: "missing"
        case .sizeMismatch: "size_mismatch"
        case .digestMismatch: "checksum_mismatch"
        case .notRegularFile: "not_regular_file"
        case .ioError: "io_error"
        }
    }

    /// `jobrun verify --json`: versioned, deterministic.
    public static func json(_ v: MirrorVerification) -> [UInt8] {
        var w = JSONWriter(pretty: true, reservingCapacity: 200 * max(1, v.counts.slices))
        w.beginObject()
        w.key("format_version"); w.int(1)
        w.key("jobrun_version"); w.string(JobrunVersion.current)
        w.key("summary")
        w.beginObject()
        w.key("slices"); w.int(Int64(v.counts.slices))
        w.key("ok"); w.int(Int64(v.counts.ok))
        w.key("mismatched"); w.int(Int64(v.counts.mismatched))
        w.key("missing"); w.int(Int64(v.counts.missing))
        w.key("errors"); w.int(Int64(v.counts.errors))
        w.key("extra"); if let e = v.extraFiles { w.int(Int64(e.count)) } else { w.null() }
        w.key("all_ok"); w.bool(v.counts.isAllOK)
        w.endObject()
        w.key("resources")
        w.beginArray()
        for entry in v.entries {
            let r = entry.resource
            w.beginObject()
            w.key("id"); w.string(r.id)
            w.key("manifest"); w.string(r.location.description)
            w.key("slices")
            w.beginArray()
            for (s, check) in zip(r.slices, entry.checks) {
                w.beginObject()
                w.key("path"); w.string(s.path)
                w.key("file"); w.string(r.filePath(of: s))
                w.key("identity"); w.string(r.identity(of: s))
                w.key("status"); w.string(status(check))
                w.key("expected")
                w.beginObject()
                w.key("size"); if let size = s.size { w.int(size) } else { w.null() }
                for d in s.digests { w.key(d.algorithm.rawValue); w.string(d.hex) }
                w.endObject()
                switch check {
                case .ok(let size, let digests):
                    w.key("actual")
                    w.beginObject()
                    w.key("size"); w.int(size)
                    for d in digests { w.key(d.algorithm.rawValue); w.string(d.hex) }
                    w.endObject()
                case .sizeMismatch(_, let actual):
                    w.key("actual"); w.beginObject(); w.key("size"); w.int(actual); w.endObject()
                case .digestMismatch(_, let actual, let size):
                    w.key("actual")
                    w.beginObject()
                    w.key("size"); w.int(size)
                    for d in actual { w.key(d.algorithm.rawValue); w.string(d.hex) }
                    w.endObject()
                case .notRegularFile(let bad, let kind):
                    w.key("message"); w.string("'\(bad)' is a \(kind), not a regular file")
                case .ioError(let bad, _, let message):
                    w.key("message"); w.string("cannot read '\(bad)': \(message)")
                case .missing:
                    break
                }
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.key("extra")
        if let extra = v.extraFiles {
            w.beginArray()
            for e in extra { w.string(e) }
            w.endArray()
        } else {
            w.null()
        }
        w.endObject()
        return w.finish()
    }

    /// One `<testsuite>` per resource, one `<testcase>` per slice (classname = resource id, name =
    /// slice path); `<failure type="ChecksumMismatch|SizeMismatch|Missing">`, `<error>` for I/O.
    public static func junit(_ v: MirrorVerification, timestamp: JUnitReport.Timestamp, hostname: String) -> JUnitReport {
        var suites: [JUnitReport.Suite] = []
        for entry in v.entries {
            let r = entry.resource
            var cases: [JUnitReport.TestCase] = []
            cases.reserveCapacity(r.slices.count)
            for (s, check) in zip(r.slices, entry.checks) {
                let path = r.filePath(of: s)
                let result: JUnitReport.TestCase.Result
                switch check {
                case .ok:
                    result = .passed
                case .missing:
                    result = .failure(type: "Missing", message: "\(path) is missing", text: "expected \(expectation(s)) at \(path); no file is there")
                case .sizeMismatch(let expected, let actual):
                    result = .failure(type: "SizeMismatch", message: "size differs: expected \(expected) bytes, actual \(actual)",
                                      text: "file: \(path)\nexpected size: \(expected)\nactual size: \(actual)")
                case .digestMismatch(let expected, let actual, let size):
                    result = .failure(type: "ChecksumMismatch", message: "\(expected.algorithm.rawValue) differs",
                                      text: "file: \(path)\n\(Digest.comparisonLines(expected: s.digests, actual: actual))size: \(size)")
                case .notRegularFile(let bad, let kind):
                    result = .error(type: "NotRegularFile", message: "'\(bad)' is a \(kind), not a regular file",
                                    text: "file: \(path)\njobrun never follows symbolic links in a mirror")
                case .ioError(let bad, let code, let message):
                    result = .error(type: "IOError", message: "cannot read '\(bad)': \(message)", text: "file: \(path)\nerrno: \(code)")
                }
                let seconds = Double(entry.seconds[cases.count])
                cases.append(.init(classname: r.id, name: s.path, time: .nanoseconds(Int64((seconds * 1e9).rounded())), result: result))
            }
            suites.append(.init(
                name: r.id, package: "jobrun.verify", timestamp: timestamp, hostname: hostname, time: nil,
                properties: JUnitReport.Property.describing(r),
                testCases: cases))
        }
        return JUnitReport(suites: suites)
    }

    static func expectation(_ s: Slice) -> String {
        var parts: [String] = []
        if let size = s.size { parts.append("\(size) bytes") }
        for d in s.digests { parts.append("\(d.algorithm.rawValue) \(d.hex)") }
        return parts.isEmpty ? "a file" : parts.joined(separator: ", ")
    }
}

extension JUnitReport.Property {
    /// A resource's `<properties>` in the reports of `verify` and `apply`: where it was declared,
    /// where it is written, and by which jobrun.
    public static func describing(_ r: Resource) -> [JUnitReport.Property] {
        [
            .init(name: "manifest", value: r.location.description),
            .init(name: "output", value: r.outputRoot),
            .init(name: "dest", value: r.dest),
            .init(name: "jobrun_version", value: JobrunVersion.current),
        ]
    }
}
