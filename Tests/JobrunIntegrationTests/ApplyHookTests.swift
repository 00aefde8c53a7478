import Foundation
import JobrunTestSupport
import Testing

/// Completion hooks, through the real binary against the loopback server (docs/policy.md,
/// "Hooks"): `on_complete` once the resource's files are in place, `on_failure` for a failed and
/// a skipped resource, the clean environment (no secret, no descriptor of jobrun's), `warn`
/// against `fail`, `--on-run-end`, and the redelivery of a hook due when jobrun was killed.
@Suite struct ApplyHookTests {
    static let size = 1_000
    static var sha256: String { Generated.sha256Hex(size: size, name: "a.bin") }

    /// Resource `r` (one slice, with its size and digest, fetched with a secret header) and the
    /// `hooks:` mapping given for it.
    static func manifest(_ fixture: ApplyFixture, hooks: String, header: Bool = true) -> String {
        """
        version: 1
        defaults:
          output: ./mirror
          retries: {attempts: 1}
        resources:
          - id: r
            base_url: \(fixture.server.baseURL)/gen/\(size)/
            headers: {\(header ? "Authorization: \"Bearer ${MIRROR_TOKEN}\"" : "")}
            hooks: \(hooks)
            slices:
              - {path: a.bin, size: \(size), sha256: \(sha256)}

        """
    }

    static let token = "s3cret-token-7f1c"

    /// An executable script in the fixture's folder; hooks name it `./NAME` (the manifest's
    /// folder). `$out` in it is that folder.
    @discardableResult
    static func script(_ fixture: ApplyFixture, _ name: String, _ body: String) throws -> String {
        let path = try fixture.directory.write(file: name, contents: "#!/bin/sh\nout=$(dirname \"$0\")\n" + body + "\n")
        chmod(path, 0o755)
        return path
    }

    /// The folder as a program sees it (symbolic links resolved, as `getcwd` gives it).
    static func realPath(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    static func json(_ text: String?) -> [String: Any]? {
        text.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The hook sees the verified file in place and no partial file, the event on stdin, only
    /// the variables it may see (no token, nothing of the run's own environment), and no
    /// descriptor of jobrun's (the output root's lock, the run's memfd).
    @Test func onCompleteRunsOnceTheFilesAreInPlace() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try Self.script(
            fixture, "hook.sh",
            """
            cat > "$out/stdin"
            env > "$out/env"
            sha256sum "$JOBRUN_RESOURCE_FOLDER/a.bin" > "$out/sum"
            ls -a "$JOBRUN_RESOURCE_FOLDER" > "$out/listing"
            for f in /proc/$$/fd/*; do readlink "$f"; done > "$out/fds" 2>/dev/null
            echo hook ran
            """)
        try fixture.write(manifest: Self.manifest(fixture, hooks: "{on_complete: [./hook.sh]}"))
        let result = try await fixture.apply(
            ["--events", "events.ndjson", "--json", "-v"], environment: ["MIRROR_TOKEN": Self.token, "JOBRUN_PARENT_ONLY": "x"])
        #expect(result.status == 0, "\(result)")

        #expect(fixture.directory.contents(of: "sum")?.hasPrefix(Self.sha256 + " ") == true, "the file was not whole when the hook ran")
        #expect(fixture.directory.contents(of: "listing")?.split(separator: "\n").sorted() == [".", "..", "a.bin"])
        let folder = Self.realPath(fixture.directory.path("mirror/r"))
        let event = try #require(Self.json(fixture.directory.contents(of: "stdin")), "no JSON on stdin")
        #expect(event["hook"] as? String == "on_complete" && event["event"] as? String == "resource_done")
        #expect(event["resource"] as? String == "r" && event["folder"] as? String == folder && event["status"] as? String == "complete")
        #expect((event["counts"] as? [String: Any])?["fetched"] as? Int == 1 && event["redelivery"] as? Bool == false)

        let env = try #require(fixture.directory.contents(of: "env"))
        #expect(!env.contains(Self.token) && !env.contains("MIRROR_TOKEN") && !env.contains("JOBRUN_PARENT_ONLY"), "\(env)")
        let names = Set(env.split(separator: "\n").compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
        // PWD is the shell's own.
        let allowed: Set<String> = ["PATH", "HOME", "LANG", "TZ", "PWD"]
        #expect(names.allSatisfy { allowed.contains($0) || $0.hasPrefix("LC_") || $0.hasPrefix("JOBRUN_") }, "\(names.sorted())")
        let log = try EventLog.read("events.ndjson", in: fixture.directory)
        log.expectWellFormed()
        let runID = try log.first("run_start").run
        for line in [
            "JOBRUN_HOOK=on_complete", "JOBRUN_EVENT=resource_done", "JOBRUN_RUN_ID=\(runID)", "JOBRUN_REDELIVERY=0",
            "JOBRUN_RESOURCE=r", "JOBRUN_RESOURCE_FOLDER=\(folder)", "JOBRUN_STATUS=complete", "JOBRUN_COUNT_FETCHED=1",
            "JOBRUN_COUNT_BYTES_TRANSFERRED=\(Self.size)",
        ] {
            #expect(env.split(separator: "\n").contains(Substring(line)), "no \(line) in\n\(env)")
        }
        #expect(!env.contains("JOBRUN_EXIT_STATUS") && !env.contains("JOBRUN_CAUSE"))

        // Pipes (stdin, the output, the shell's saved copies), the script the shell reads, the
        // loop's own redirections: nothing of jobrun's (the output root's lock, the run's memfd,
        // its sockets and state database).
        let fds = try #require(fixture.directory.contents(of: "fds")).split(separator: "\n")
        let ownFiles = ["fds", "hook.sh"].flatMap { [fixture.directory.path($0), Self.realPath(fixture.directory.path($0))] }
        #expect(fds.count >= 3 && fds.allSatisfy { $0.hasPrefix("pipe:") || $0 == "/dev/null" || ownFiles.contains(String($0)) }, "\(fds)")

        // The hook starts after its resource is done, and ends before the run does.
        let types = log.types
        let done = try #require(types.firstIndex(of: "resource_done"))
        let started = try #require(types.firstIndex(of: "hook_start"))
        #expect(done < started && types.firstIndex(of: "hook_end").map { $0 > started && $0 < types.count - 1 } == true, "\(types)")
        let end = try log.first("hook_end")
        #expect(end.int("exit_status") == 0 && end["fails_run"] as? Bool == false && end.string("output_tail") == "hook ran\n")
        #expect(
            end["argv"] as? [String] == [Self.realPath(fixture.directory.path("hook.sh"))] || end["argv"] as? [String] == [fixture.directory.path("hook.sh")])
        #expect(result.stdout.contains("\"hooks\"") && result.stderr.contains("  hook on_complete of 'r': exit status 0"), "\(result)")
    }

    /// A hook runs beside the transfers: `a`'s hook waits for the file of `b`, which starts only
    /// once `a` is complete (and its hook due). Were the run to wait for the hook, `b` would never
    /// come and the hook would time out.
    @Test func aSlowHookHoldsUpNoTransfer() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try Self.script(fixture, "wait-for-b.sh", "while [ ! -e \"$out/mirror/b/b.bin\" ]; do sleep 0.05; done; echo saw b")
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: a
                    base_url: \(fixture.server.baseURL)/gen/10/
                    hooks: {on_complete: [./wait-for-b.sh], on_hook_failure: fail, timeout: 5m}
                    slices: [{path: a.bin}]
                  - id: b
                    depends_on: [a]
                    base_url: \(fixture.server.baseURL)/gen/20/
                    slices: [{path: b.bin}]
                """)
        let result = try await fixture.apply(["--events", "events.ndjson"])
        #expect(result.status == 0, "\(result)")
        let log = try EventLog.read("events.ndjson", in: fixture.directory)
        log.expectWellFormed()
        let end = try log.first("hook_end")
        #expect(end.int("exit_status") == 0 && end.string("output_tail") == "saw b\n", "\(log.text)")
    }

    /// A 404 fails the resource: `on_failure` says so; the resource that depends on it is
    /// skipped, and its `on_failure` says that; `on_complete` runs for neither.
    @Test func onFailureTellsAFailedAndASkippedResource() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try Self.script(fixture, "failed.sh", "cat > \"$out/$JOBRUN_RESOURCE.stdin\"; env > \"$out/$JOBRUN_RESOURCE.env\"")
        try Self.script(fixture, "complete.sh", "touch \"$out/completed-$JOBRUN_RESOURCE\"")
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  retries: {attempts: 1}
                  hooks: {on_complete: [./complete.sh], on_failure: [./failed.sh]}
                resources:
                  - id: gone
                    slices: [{path: a.bin, url: "\(fixture.url("/status/404"))"}]
                  - id: after
                    depends_on: [gone]
                    base_url: \(fixture.server.baseURL)/gen/10/
                    slices: [{path: b.bin}]
                """)
        let result = try await fixture.apply(["--events", "events.ndjson"])
        #expect(result.status == 1, "\(result)")
        #expect(!fixture.directory.exists("completed-gone") && !fixture.directory.exists("completed-after"))
        let gone = try #require(fixture.directory.contents(of: "gone.env"), "no on_failure for the 404")
        for line in [
            "JOBRUN_HOOK=on_failure", "JOBRUN_EVENT=resource_failed", "JOBRUN_STATUS=failed", "JOBRUN_CAUSE=slices_failed",
            "JOBRUN_REASON=1 of 1 slices failed", "JOBRUN_COUNT_FAILED=1",
        ] {
            #expect(gone.split(separator: "\n").contains(Substring(line)), "no \(line) in\n\(gone)")
        }
        let after = try #require(Self.json(fixture.directory.contents(of: "after.stdin")), "no on_failure for the skipped resource")
        #expect(after["event"] as? String == "resource_skipped" && after["status"] as? String == "skipped")
        #expect(after["cause"] as? String == "dependency_failed" && (after["reason"] as? String)?.contains("'gone'") == true)
        let log = try EventLog.read("events.ndjson", in: fixture.directory)
        log.expectWellFormed()
        #expect(log.all("hook_end").count == 2 && log.all("hook_end").allSatisfy { $0.string("hook") == "on_failure" })
    }

    /// A failing hook is a warning by default: the run's status is its slices'. With
    /// `on_hook_failure: fail` it fails its resource and the run, in every report.
    @Test func aFailingHookWarnsOrFailsTheRun() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let failing = "[sh, -c, 'echo first; echo broken >&2; exit 3']"
        try fixture.write(manifest: Self.manifest(fixture, hooks: "{on_complete: \(failing)}"))
        let warned = try await fixture.apply(environment: ["MIRROR_TOKEN": Self.token])
        #expect(warned.status == 0, "\(warned)")
        #expect(warned.stderr.contains("jobrun: warning: hook on_complete of 'r' failed: exit status 3 (last output: broken)\n"), "\(warned)")
        #expect(warned.stdout.hasSuffix("Apply complete! Slices: 1 fetched (1000 B), 0 resumed, 0 up to date, 0 failed, 0 deferred.\n"), "\(warned)")

        try fixture.write(manifest: Self.manifest(fixture, hooks: "{on_complete: \(failing), on_hook_failure: fail}"))
        let failed = try await fixture.apply(
            ["--json", "--junit", "junit.xml", "--events", "events.ndjson"], environment: ["MIRROR_TOKEN": Self.token])
        #expect(failed.status == 1, "\(failed)")
        #expect(failed.stderr.contains("! r: hook on_complete failed: exit status 3 (last output: broken)\n"), "\(failed)")
        #expect(failed.stderr.hasSuffix("Apply failed! Slices: 0 fetched (0 B), 0 resumed, 1 up to date, 0 failed, 0 deferred; 1 hook failed.\n"), "\(failed)")
        let report = try #require(Self.json(failed.stdout), "\(failed)")
        let summary = report["summary"] as? [String: Any]
        #expect(summary?["success"] as? Bool == false && summary?["hooks_failed"] as? Int == 1)
        let hook = ((report["resources"] as? [[String: Any]])?.first?["hooks"] as? [[String: Any]])?.first
        #expect(hook?["hook"] as? String == "on_complete" && hook?["exit_status"] as? Int == 3 && hook?["fails_run"] as? Bool == true)
        #expect(hook?["output_tail"] as? String == "first\nbroken\n")
        let junit = try JUnitFile.parse(try #require(fixture.directory.contents(of: "junit.xml")))
        #expect(junit.cases["r/hook on_complete"]?.kind == "failure" && junit.cases["r/hook on_complete"]?.type == "HookFailed", "\(junit.cases)")
        #expect(junit.cases["r/a.bin"]?.kind == "passed")
        let log = try EventLog.read("events.ndjson", in: fixture.directory)
        log.expectWellFormed()
        let end = try log.first("hook_end")
        #expect(end["failed"] as? Bool == true && end["fails_run"] as? Bool == true && end.string("on_hook_failure") == "fail")
        #expect(log.end?.int("exit_status") == 1)
    }

    /// `--on-run-end` runs after the reports are written, told how the run ended; its failure
    /// is a warning. A value that a shell would have split is refused.
    @Test func theRunEndHookRunsLast() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try Self.script(
            fixture, "end.sh",
            """
            { echo "$1|$JOBRUN_STATUS|$JOBRUN_EXIT_STATUS|${JOBRUN_RESOURCE-unset}"; test -s "$out/junit.xml" && echo junit; cat; } > "$out/end"
            exit 5
            """)
        try fixture.write(manifest: Self.manifest(fixture, hooks: "{}"))
        let result = try await fixture.apply(
            ["--junit", "junit.xml", "--events", "events.ndjson", "--on-run-end", "[\"./end.sh\", \"one argument\"]"],
            environment: ["MIRROR_TOKEN": Self.token])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("jobrun: warning: hook on_run_end failed: exit status 5\n"), "\(result)")
        let lines = try #require(fixture.directory.contents(of: "end")).split(separator: "\n")
        #expect(lines.first == "one argument|complete|0|unset" && lines.dropFirst().first == "junit", "\(lines)")
        let event = try #require(Self.json(lines.last.map(String.init)))
        #expect(event["event"] as? String == "run_end" && event["exit_status"] as? Int == 0 && event["resource"] is NSNull)
        let log = try EventLog.read("events.ndjson", in: fixture.directory)
        log.expectWellFormed()
        #expect(Array(log.types.suffix(3)) == ["hook_start", "hook_end", "run_end"])

        for bad in ["notify me", "[]", "[\"a\", 1]", ""] {
            let refused = try await fixture.apply(["--on-run-end", bad])
            #expect(refused.status == 64 && refused.stderr.contains("--on-run-end: "), "\(bad): \(refused)")
        }
    }

    /// An apply in the background whose `on_complete` hook (with `settings`) appends `recording`
    /// to `deliveries` each time it runs, and the first time blocks (a `sleep` in its place) until
    /// its group is killed. Returns once it blocks, with the hook's pid (its group's id).
    static func startWithABlockedHook(
        _ fixture: ApplyFixture, recording: String, settings: String = "", arguments: [String] = []
    ) async throws -> (BackgroundProcess, Int32) {
        try Self.script(
            fixture, "hook.sh",
            """
            echo "\(recording)" >> "$out/deliveries"
            if [ ! -e "$out/blocked" ]; then echo $$ > "$out/blocked"; exec sleep 600; fi
            """)
        // A timeout longer than the hook's sleep: the test ends the hook, never a timeout, however
        // late a loaded machine lets the test look.
        try fixture.write(
            manifest: Self.manifest(fixture, hooks: "{on_complete: [./hook.sh], timeout: 15m\(settings.isEmpty ? "" : ", " + settings)}", header: false))
        let apply = try fixture.startApply(arguments)
        let blocked = await Poll.until(timeout: .seconds(60)) { fixture.directory.contents(of: "blocked")?.hasSuffix("\n") == true }
        // A failure here leaves `apply` to its deinit, which kills it.
        let pid = blocked ? Int32(fixture.directory.contents(of: "blocked")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") : nil
        return (apply, try #require(pid, "the hook never ran: \(apply.stderr)"))
    }

    /// SIGTERM while only a hook is left: the hook's group gets SIGTERM, the run exits 143 as
    /// interrupted, and the hook, cut short, stays due: the next apply runs it again.
    @Test func aSignalCutsAHookShortAndItStaysDue() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let (apply, hook) = try await Self.startWithABlockedHook(
            fixture, recording: "$JOBRUN_REDELIVERY", settings: "on_hook_failure: fail", arguments: ["--events", "stopped.ndjson"])
        defer { apply.kill() }
        defer { kill(-hook, SIGKILL) }
        apply.signal(SIGTERM)
        let result = try #require(await apply.wait(timeout: .seconds(60)), "jobrun did not stop: \(apply.stderr)")
        #expect(result.status == 143, "\(result)")
        #expect(result.stdout.hasSuffix("Apply interrupted! Slices: 1 fetched (1000 B), 0 resumed, 0 up to date, 0 failed, 0 deferred.\n"), "\(result)")
        #expect(result.stderr.contains("jobrun: hook on_complete of 'r' was stopped with the run; it runs again on the next apply\n"), "\(result)")
        let stopped = try EventLog.read("stopped.ndjson", in: fixture.directory)
        stopped.expectWellFormed()
        let end = try stopped.first("hook_end")
        #expect(end["cut_short"] as? Bool == true && end.int("signal") == Int(SIGTERM) && end["fails_run"] as? Bool == false, "\(stopped.text)")

        let next = try await fixture.apply()
        #expect(next.status == 0, "\(next)")
        #expect(fixture.directory.contents(of: "deliveries") == "0\n1\n0\n")
    }

    /// jobrun killed (SIGKILL) while a hook is due: the next apply runs it first, as a
    /// redelivery of the killed run's event, then its own; the run after that has nothing to
    /// redeliver. The killed run's hook, still running, holds no lock of jobrun's: the next
    /// apply is not refused.
    @Test func aHookDueWhenJobrunWasKilledRunsOnTheNextApply() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let (killed, hook) = try await Self.startWithABlockedHook(fixture, recording: "$JOBRUN_REDELIVERY $JOBRUN_RUN_ID $(cat)")
        defer { killed.kill() }
        defer { kill(-hook, SIGKILL) }
        killed.kill()
        let first = try #require(fixture.directory.contents(of: "deliveries")?.split(separator: " ").dropFirst().first)
        let killedRun = String(first)

        let next = try await fixture.apply(["--events", "events.ndjson", "-v"])
        #expect(next.status == 0, "\(next)")
        let deliveries = try #require(fixture.directory.contents(of: "deliveries")).split(separator: "\n")
        let log = try EventLog.read("events.ndjson", in: fixture.directory)
        log.expectWellFormed()
        let nextRun = try log.first("run_start").run
        #expect(deliveries.count == 3, "\(deliveries)")
        #expect(deliveries.first?.hasPrefix("0 \(killedRun) {") == true)
        #expect(deliveries.dropFirst().first?.hasPrefix("1 \(killedRun) {") == true, "the redelivery comes first")
        #expect(deliveries.last?.hasPrefix("0 \(nextRun) {") == true)
        let redelivered = try #require(Self.json(deliveries.dropFirst().first.map { String($0.split(separator: " ", maxSplits: 2)[2]) }))
        #expect(redelivered["redelivery"] as? Bool == true && redelivered["run"] as? String == killedRun && redelivered["resource"] as? String == "r")
        let starts = log.all("hook_start")
        #expect(starts.map { $0["redelivery"] as? Bool } == [true, false] && starts.first?.string("event_run") == killedRun, "\(starts)")
        #expect(next.stdout.contains("  hook on_complete of 'r': exit status 0 ("), "\(next)")
        #expect(next.stdout.contains(") (redelivered, from run \(killedRun))\n"), "\(next)")

        let third = try await fixture.apply()
        #expect(third.status == 0, "\(third)")
        let after = try #require(fixture.directory.contents(of: "deliveries")).split(separator: "\n")
        #expect(after.count == 4 && after.last?.hasPrefix("0 ") == true, "nothing is redelivered twice: \(after)")
    }
}
