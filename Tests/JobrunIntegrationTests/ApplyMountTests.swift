import Foundation
import JobrunTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder below the output root may be another file system. `syncfs(2)` flushes only the file
/// system of its descriptor, so each one the run writes to is synced before files are renamed
/// into it, before their resource completes, and before the mirror state records them; strace
/// shows each call with the folder its descriptor is on.
@Suite struct ApplyMountTests {
    static let strace = Executables.find("strace")

    /// Whether strace can trace a child here (it needs ptrace, which a container may refuse).
    static let canTrace: Bool = {
        guard let strace,
            let probe = try? BinaryRunner(executable: strace).runBlocking(
                ["-f", "--seccomp-bpf", "-qq", "-e", "trace=syncfs", "-o", "/dev/null", "/bin/true"], timeout: .seconds(10))
        else { return false }
        return probe.status == 0
    }()

    /// `jobrun arguments…` in the fixture's folder under strace: the result and the calls traced,
    /// one per line (`PID call(fd</folder>, …) = result`).
    static func traced(_ arguments: [String], in fixture: ApplyFixture, name: String) async throws -> (RunResult, [String]) {
        let strace = try #require(Self.strace)
        let log = fixture.directory.path(name)
        let result = try await BinaryRunner(executable: strace, defaultTimeout: Harness.timeout).run(
            [
                "-f", "--seccomp-bpf", "-qq", "-y", "-e", "trace=syncfs,rename,renameat,renameat2", "-e", "signal=none", "-o", log,
                try Harness.jobrun().executable,
            ]
                + arguments,
            removingEnvironment: ApplyFixture.removedEnvironment(keeping: [:]), workingDirectory: fixture.directory.path)
        let text = try String(contentsOfFile: log, encoding: .utf8)
        return (result, text.split(separator: "\n").map(String.init))
    }

    @Test(.enabled(if: DiskFull.canMount, "mounting a tmpfs needs root"), .enabled(if: canTrace, "needs strace, allowed to trace"))
    func aMountBelowTheRootIsSyncedBeforeItsFilesAreRenamedAndRecorded() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let mountPoint = try fixture.directory.makeDirectory("mirror/r/sub")
        try #require(DiskFull.mount(at: mountPoint))
        defer { DiskFull.unmount(mountPoint) }
        let names = ["top.bin", "sub/a.bin", "sub/b.bin", "sub/c.bin"]
        let slices = names.map { name in
            let file = String(name.split(separator: "/").last ?? "")
            return "          - {path: \(name), url: \"\(fixture.url("/gen/100/\(file)"))\", size: 100, sha256: \(Generated.sha256Hex(size: 100, name: file))}"
        }
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: r
                    slices:
                \(slices.joined(separator: "\n"))

                """)
        let mount = "<" + (URL(fileURLWithPath: mountPoint).resolvingSymlinksInPath().path) + ">"
        let (applied, calls) = try await Self.traced(["apply", "site.yaml"], in: fixture, name: "apply.strace")
        #expect(applied.status == 0, "\(applied)")
        let syncs = calls.indices.filter { calls[$0].contains("syncfs(") && calls[$0].contains(mount) }
        let renames = calls.indices.filter { calls[$0].contains("rename") && calls[$0].contains(mount) }
        #expect(renames.count == 3, "\(calls.joined(separator: "\n"))")
        let firstRename = try #require(renames.first)
        #expect(syncs.contains { $0 < firstRename }, "no sync of the mount before its first rename:\n\(calls.joined(separator: "\n"))")
        #expect(syncs.contains { $0 > (renames.last ?? 0) }, "no sync of the mount after its last rename (the resource's):\n\(calls.joined(separator: "\n"))")
        #expect(!calls.contains { $0.contains("syncfs(") && $0.contains("= -1") }, "\(calls)")
        try await fixture.expectVerified()

        // verify proves the files again; they changed moments ago, so their file systems are
        // synced before the mirror state records them.
        let (verified, verifyCalls) = try await Self.traced(["verify", "site.yaml"], in: fixture, name: "verify.strace")
        #expect(verified.status == 0, "\(verified)")
        #expect(verifyCalls.contains { $0.contains("syncfs(") && $0.contains(mount) }, "\(verifyCalls.joined(separator: "\n"))")
    }
}
