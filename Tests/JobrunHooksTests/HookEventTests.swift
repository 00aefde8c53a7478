import Foundation
import JobrunCore
import JobrunTestSupport
import Testing
@testable import JobrunHooks

/// What a hook is told (the JSON line and the `JOBRUN_*` variables, the same facts), what passes
/// from jobrun's environment, and how its program is found.
@Suite struct HookEventTests {
    static let completed = HookEvent(
        hook: "on_complete", event: "resource_done", run: "01JD", dueAt: "2026-11-25T08:40:00.123Z", resource: "intro",
        folder: "/srv/mirror/intro", status: "complete", counts: [.init(name: "fetched", value: 3), .init(name: "bytes_transferred", value: 12)])

    @Test func theLineHasEveryKeyInOrder() {
        #expect(
            String(decoding: Self.completed.line, as: UTF8.self) == """
                {"v":2,"hook":"on_complete","event":"resource_done","run":"01JD","due_at":"2026-11-25T08:40:00.123Z","redelivery":false,\
                "resource":"intro","folder":"/srv/mirror/intro","status":"complete","cause":null,"reason":null,\
                "counts":{"fetched":3,"bytes_transferred":12},"exit_status":null}

                """)
    }

    @Test func theVariablesTellTheSameAndLeaveNullsUnset() {
        let variables = Self.completed.variables.map { "\($0.name)=\($0.value)" }
        #expect(
            variables == [
                "JOBRUN_HOOK=on_complete", "JOBRUN_EVENT=resource_done", "JOBRUN_RUN_ID=01JD", "JOBRUN_REDELIVERY=0", "JOBRUN_RESOURCE=intro",
                "JOBRUN_RESOURCE_FOLDER=/srv/mirror/intro", "JOBRUN_STATUS=complete", "JOBRUN_COUNT_FETCHED=3", "JOBRUN_COUNT_BYTES_TRANSFERRED=12",
            ])
        let runEnd = HookEvent(hook: "on_run_end", event: "run_end", run: "01JD", dueAt: "x", status: "failed", counts: [], exitStatus: 1)
        #expect(runEnd.variables.map(\.name) == ["JOBRUN_HOOK", "JOBRUN_EVENT", "JOBRUN_RUN_ID", "JOBRUN_REDELIVERY", "JOBRUN_STATUS", "JOBRUN_EXIT_STATUS"])
    }

    /// An outbox line read back is the same event; a redelivery differs only by its flag.
    @Test func aLineReadBackIsTheSameEvent() throws {
        var failed = Self.completed
        failed.cause = "slices_failed"
        failed.reason = "1 of 2 slices failed"
        failed.counts = [.init(name: "failed", value: 1), .init(name: "fetched", value: 1), .init(name: "extra_count", value: 5)]
        let read = try #require(HookEvent.read(String(decoding: failed.line.dropLast(), as: UTF8.self)))
        // Counts come back in the summary's order, unknown names last.
        #expect(read.counts.map(\.name) == ["fetched", "failed", "extra_count"])
        failed.counts = read.counts
        #expect(read == failed)
        var again = read
        again.isRedelivery = true
        #expect(String(decoding: again.line, as: UTF8.self).contains("\"redelivery\":true"))
        #expect(again.variables.contains { $0 == ("JOBRUN_REDELIVERY", "1") })
        #expect(HookEvent.read("not json") == nil)
        // A line an earlier version stored is not read as this version's (its counts meant otherwise).
        let line = String(decoding: failed.line.dropLast(), as: UTF8.self)
        #expect(line.hasPrefix("{\"v\":\(HookEvent.version),"))
        #expect(HookEvent.read("{\"v\":1," + line.drop { $0 != "," }.dropFirst()) == nil)
    }

    /// Only PATH, HOME, LANG, LC_* and TZ pass; never a credential, never a JOBRUN_ variable of
    /// jobrun's own environment.
    @Test func onlyAFewVariablesPass() {
        let parent = [
            "PATH": "/opt/bin:/usr/bin", "HOME": "/home/m", "LANG": "de_DE.UTF-8", "LC_TIME": "C", "TZ": "Europe/Berlin",
            "API_TOKEN": "s3cret", "AWS_SECRET_ACCESS_KEY": "k", "JOBRUN_RUN_ID": "outer", "JOBRUN_METERED": "yes", "USER": "m",
            "LD_PRELOAD": "/evil.so",
        ]
        let kept = HookEnvironment.inherited(from: parent).map { "\($0.name)=\($0.value)" }
        #expect(kept == ["HOME=/home/m", "LANG=de_DE.UTF-8", "LC_TIME=C", "PATH=/opt/bin:/usr/bin", "TZ=Europe/Berlin"])
        #expect(HookEnvironment.inherited(from: [:]).map { "\($0.name)=\($0.value)" } == ["PATH=" + HookEnvironment.defaultPath])
    }

    @Test func aBareProgramIsLookedUpOnPATH() throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-hook")
        defer { directory.remove() }
        let script = try directory.write(file: "bin/notify", contents: "#!/bin/sh\n")
        _ = try directory.write(file: "plain/notify", contents: "not executable")
        chmod(script, 0o755)
        try FileManager.default.createDirectory(atPath: directory.path("dir/notify"), withIntermediateDirectories: true)
        let path = "::\(directory.path("dir")):\(directory.path("plain")):\(directory.path("bin")):/usr/bin"
        #expect(try HookProgram.resolve("notify", path: path).get() == script)
        #expect(try HookProgram.resolve("./notify", path: path).get() == "./notify")
        guard case .failure(let error) = HookProgram.resolve("no-such-hook", path: "/usr/bin") else {
            Issue.record("found a program that does not exist")
            return
        }
        #expect(error.description == "'no-such-hook' is not an executable file in any folder of PATH (/usr/bin)")
    }
}
