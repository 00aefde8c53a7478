import JobrunCore
import JobrunSystem
import JobrunTrust

/// Verifies a clearsigned file (a Debian `InRelease`) with `gpgv` against a keyring, as apt does,
/// and hands back only the text the signature covers. gpgv runs with a private home, an empty
/// environment but `LC_ALL=C`, and nothing of jobrun's open files.
struct OpenPGPVerifier: Sendable {
    /// The keyring: a binary keyring (`.gpg`), or one ASCII-armored (`.asc`), which is dearmored first.
    var keyring: String
    /// The `gpgv` program; found on `PATH` when `nil`.
    var program: String?

    /// How long gpgv may take before it is stopped.
    static let timeout: Duration = .seconds(120)

    /// The signed text of `clearsigned`, or why it is not trusted.
    func verify(_ clearsigned: [UInt8], name: String) -> Result<[UInt8], CatalogFetchError> {
        if let problem = ClearsignedText.problem(clearsigned) {
            return .failure(CatalogFetchError("'\(name)' is not trusted: \(problem)", isTransient: false))
        }
        return run(name: name, files: [("InRelease", clearsigned)], arguments: { folder in ["--output", folder + "/Release", folder + "/InRelease"] }) {
            folder in
            switch FileReader.read(folder + "/Release", limit: CatalogResolver.maxCatalogBytes) {
            case .success(let bytes): .success(bytes)
            case .failure(let failure):
                .failure(CatalogFetchError("cannot read what gpgv verified of '\(name)': \(FileReader.describe(failure))", isTransient: false))
            }
        }
    }

    /// Whether `signature`, a detached OpenPGP signature, verifies `data` (a list named `name`).
    func verify(_ data: [UInt8], detached signature: [UInt8], name: String) -> Result<Void, CatalogFetchError> {
        run(name: name, files: [("list", data), ("list.sig", signature)], arguments: { folder in [folder + "/list.sig", folder + "/list"] }) { _ in
            .success([])
        }.map { _ in () }
    }

    /// gpgv over `files`, written into a private folder with the keyring (binary, dearmored when
    /// armored), judged by its status lines (``GPGStatus``); hands `read` the folder before it
    /// is removed.
    private func run(
        name: String, files: [(name: String, bytes: [UInt8])], arguments: (String) -> [String], read: (String) -> Result<[UInt8], CatalogFetchError>
    ) -> Result<[UInt8], CatalogFetchError> {
        func refuse(_ why: String) -> Result<[UInt8], CatalogFetchError> { .failure(CatalogFetchError("'\(name)' is not trusted: \(why)", isTransient: false)) }
        guard let gpgv = program ?? Self.find("gpgv") else {
            return .failure(CatalogFetchError("'\(name)' cannot be verified: gpgv is not installed (the Debian package gpgv)", isTransient: false))
        }
        guard let folder = Self.makeFolder() else {
            return .failure(CatalogFetchError("cannot make a private folder for gpgv: \(systemErrorText(errno))", isTransient: false))
        }
        defer { _ = TreeRemoval.remove(folder) }
        let status = folder + "/status"
        // The keyring goes into the private folder as a binary keyring, whatever its form: gpgv
        // reads a name without a slash in its home.
        let keyringPath = folder + "/keyring.gpg"
        let key: [UInt8]
        switch FileReader.read(keyring, limit: 16 << 20) {
        case .success(let bytes): key = bytes
        case .failure(let failure):
            return .failure(CatalogFetchError("cannot read the keyring '\(keyring)': \(FileReader.describe(failure))", isTransient: false))
        }
        let binary: [UInt8]
        if ArmoredKey.isArmored(key) {
            guard let dearmored = ArmoredKey.dearmor(key) else {
                return .failure(CatalogFetchError("the keyring '\(keyring)' is ASCII-armored, and its armor is malformed", isTransient: false))
            }
            binary = dearmored
        } else {
            binary = key
        }
        do {
            for file in files { try AtomicFile.write(file.bytes, to: folder + "/" + file.name) }
            try AtomicFile.write(binary, to: keyringPath)
        } catch {
            return .failure(CatalogFetchError("cannot hand '\(name)' to gpgv: \(error)", isTransient: false))
        }
        let argv = ["gpgv", "--homedir", folder, "--status-fd", "1", "--keyring", keyringPath] + arguments(folder)
        let spawned = ProcessSpawn.spawn(gpgv, argv: argv, environment: ["LC_ALL=C"]) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, status, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        let pid: pid_t
        switch spawned {
        case .success(let child): pid = child
        case .failure(let error): return .failure(CatalogFetchError("cannot start gpgv: \(error.description)", isTransient: false))
        }
        guard let exit = Self.wait(for: pid, atMost: Self.timeout) else { return refuse("gpgv did not finish within \(Self.timeout.secondsText)") }
        // gpgv's exit status says whether every signature verified; apt, and jobrun, go by the
        // good one among them (``GPGStatus``), when the others explain the failure.
        let verdict = GPGStatus(FileReader.text(status, limit: 1 << 20) ?? "")
        if let problem = verdict.problem(keyring: keyring) { return refuse(problem) }
        if exit != 0, !verdict.explainsFailure { return refuse("gpgv failed (exit status \(exit.map(String.init) ?? "none"))") }
        return read(folder)
    }

    /// Waits for `pid` to exit, polling; kills it (and waits) after `limit`.
    /// - Returns: its exit status (`nil` inside when a signal ended it), or `nil` when it was
    ///   stopped at the limit.
    static func wait(for pid: pid_t, atMost limit: Duration) -> Int32?? {
        let deadline = ContinuousClock.now + limit
        var status: Int32 = 0
        while true {
            let got = waitpid(pid, &status, WNOHANG)
            if got == pid { return .some(ProcessSpawn.termination(status).exitStatus) }
            if got < 0 && errno != EINTR { return .some(nil) }
            if ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                return nil
            }
            usleep(2_000)
        }
    }

    /// `name` in the folders of `PATH` (or the usual ones without it).
    static func find(_ name: String) -> String? {
        ExecutableSearch.find(name, in: ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
    }

    private static func makeFolder() -> String? {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/jobrun-gpgv-XXXXXX").utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in
            guard let p = buffer.baseAddress, mkdtemp(p) != nil else { return nil }
            return String(cString: p)
        }
    }
}
