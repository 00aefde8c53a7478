import ArgumentParser
import JobrunCore
import JobrunManifest
import JobrunFiles
import JobrunSystem

/// Options every manifest-reading command shares.
struct ManifestOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "Manifest files or folders (folders: every *.yaml and *.yml in name order); with none, the folder 'manifests' if it is here, else the files here named jobrun.yaml or *.jobrun.yaml (and .yml).",
            valueName: "manifests"))
    var manifests: [String] = []

    @Option(name: .long, help: ArgumentHelp("Output root for every manifest, overriding 'defaults.output'.", valueName: "dir"), completion: .directory)
    var output: String?

    @Flag(name: .customLong("allow-file-urls"), help: "Accept file:// URLs in manifests.")
    var allowFileURLs = false

    /// Loads and validates the manifests, printing every diagnostic to stderr. With
    /// `fingerprinting`, each file's SHA-256 is kept for saved plans (`ManifestFile.fingerprint`);
    /// only `plan` and a saved plan's staleness check read it. With `requiringDigests`
    /// (`--require-digests`), every slice that declares no digest is an error at its place.
    /// `concurrency` replaces every resource's transfer limits (`--concurrency`, `--per-host`);
    /// `digest` is fed every manifest's bytes as they are read, even when they turn out invalid.
    /// - Throws: `ExitCode` 66 when a manifest cannot be read, 65 when one is invalid.
    func load(
        fingerprinting: Bool = false, requiringDigests: Bool = false, concurrency: ConcurrencyOverride = ConcurrencyOverride(), digest: ManifestsDigest? = nil
    ) throws -> Manifest {
        var options = ManifestLoader.Options()
        options.requiresDigests = requiringDigests
        options.concurrency = concurrency
        if let total = concurrency.total, let perHost = concurrency.perHost, perHost > total {
            StandardError.write(
                "jobrun: warning: --per-host \(perHost) is larger than --concurrency \(total); at most \(total) \(total == 1 ? "slot is" : "slots are") in use at once\n"
            )
        }
        options.allowFileURLs = allowFileURLs
        options.outputOverride = output
        if let digest { options.manifestRead = { digest.add($0) } }
        if fingerprinting {
            options.fingerprint = { bytes in (try? Digest.compute(.sha256, of: bytes))?.hex ?? "" }
        }
        let result = ManifestLoader.load(paths: manifests, options: options)
        let renderer = DiagnosticRenderer(sources: result.sources)
        var stderr = StandardError()
        for u in result.unreadable {
            print("jobrun: error: cannot read '\(u.path)': \(u.reason)", to: &stderr)
        }
        if !result.diagnostics.isEmpty {
            print(renderer.render(result.diagnostics), terminator: "", to: &stderr)
        }
        let errors = result.diagnostics.count { $0.severity == .error }
        let warnings = result.diagnostics.count { $0.severity == .warning }
        if errors > 0 {
            print(
                "jobrun: \(errors) error\(errors == 1 ? "" : "s")\(warnings > 0 ? ", \(warnings) warning\(warnings == 1 ? "" : "s")" : "") in the manifests; nothing was done.",
                to: &stderr)
        }
        if !result.unreadable.isEmpty { throw ExitCode(ExitStatus.manifestUnreadable.rawValue) }
        guard let manifest = result.manifest, errors == 0 else { throw ExitCode(ExitStatus.manifestInvalid.rawValue) }
        ProcessLifetime.keepUntilExit(manifest)
        return manifest
    }
}

/// `print(…, to: &stderr)`.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        Self.write(string)
    }

    static func write(_ string: String) {
        writeAll(STDERR_FILENO, Array(string.utf8))
    }
}

/// Writes to stdout in one go (large outputs are built as one string first). A write that fails
/// (a full disk, a reader gone) is a report cut short (``Reports``), named by `what`.
enum StandardOutput {
    static func write(_ string: String, what: String = "the results to stdout") {
        write(bytes: Array(string.utf8), what: what)
    }

    static func write(bytes: [UInt8], what: String = "the results to stdout") {
        if let code = bytes.withUnsafeBytes({ DescriptorIO.writeAll(STDOUT_FILENO, $0) }) {
            Reports.failed(what, because: systemErrorText(code))
        }
    }
}

/// Writes every byte to `fd`; a closed pipe or a full disk drops the rest (there is nowhere
/// left to report it).
private func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    _ = bytes.withUnsafeBytes { DescriptorIO.writeAll(fd, $0) }
}
