import Foundation
import JobrunTestSupport
import Testing

/// `--events FILE|-` on apply, plan and verify: NDJSON in the frozen envelope, `seq` without
/// gaps, `run_start` first and `run_end` last on every way out (failures, a signal, manifest
/// errors, a locked root, no space, a stale saved plan), the run id everywhere, no secret, and
/// every event valid against docs/events.schema.json. One test at a time: several hold stalled
/// transfers, and the rest of the suite runs beside them.
@Suite(.serialized) struct EventStreamTests {
    static let token = "tok-\(UUID().uuidString)"
    static let signature = "sig-\(UUID().uuidString)"

    /// Three resources: `good` (one slice, one that fails once with 503), `broken` (a 404) and
    /// `after`, which depends on `broken`. URLs carry a signature and requests a secret header.
    static func manifest(_ fixture: ApplyFixture) -> String {
        """
        version: 1
        defaults:
          retries: {attempts: 3, backoff: {initial: 50ms, max: 200ms}}
          headers: {Authorization: "Bearer ${JOBRUN_TEST_TOKEN}"}
        resources:
          - id: good
            slices:
              - {path: a.bin, url: "\(fixture.url("/gen/100/a.bin?sig=\(signature)"))", size: 100, sha256: \(Generated.sha256Hex(size: 100, name: "a.bin"))}
              - {path: flaky.bin, url: "\(fixture.url(FaultServer.path("/gen/200/flaky.bin", faults: "status=503", "n=1")))", size: 200}
          - id: broken
            slices:
              - {path: gone.bin, url: "\(fixture.url("/status/404?sig=\(signature)"))"}
          - id: after
            depends_on: [broken]
            slices:
              - {path: later.bin, url: "\(fixture.url("/gen/10/later.bin"))"}

        """
    }

    @Test func applyTellsTheWholeRunToAFile() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(manifest: Self.manifest(fixture))
        let runID = "ci-42:events.1"
        let result = try await fixture.apply(
            ["--json", "--junit", "reports/junit.xml", "--events", "reports/events.ndjson"],
            environment: ["JOBRUN_RUN_ID": runID, "JOBRUN_TEST_TOKEN": Self.token])
        #expect(result.status == 1, "\(result)")
        let log = try EventLog.read("reports/events.ndjson", in: fixture.directory)
        log.expectWellFormed(runID: runID)
        #expect(log.types[1] == "plan", "\(log.text)")

        let start = try log.first("run_start")
        #expect(start.string("command") == "apply")
        #expect(
            (start["argv"] as? [String])?.suffix(7) == ["apply", "site.yaml", "--json", "--junit", "reports/junit.xml", "--events", "reports/events.ndjson"])
        let manifest = try #require(fixture.directory.contents(of: "site.yaml"))
        #expect(start.string("manifests_sha256") == PortableSHA256.hex(of: Array(manifest.utf8)))
        let plan = try log.first("plan")
        #expect(plan.int("fetch") == 4 && plan.int("bytes_to_transfer") == 300 && plan.int("unsized_to_transfer") == 2)

        #expect(Set(log.all("resource_start").compactMap { $0.string("resource") }) == ["good", "broken"])
        let retry = try log.first("slice_retry")
        #expect(retry.string("path") == "flaky.bin" && retry.int("attempt") == 1, "\(retry.line)")
        #expect((retry["error"] as? [String: Any])?["type"] as? String == "HTTP503", "\(retry.line)")
        let done = log.all("slice_done")
        #expect(Set(done.compactMap { $0.string("path") }) == ["a.bin", "flaky.bin"])
        #expect(done.first { $0.string("path") == "flaky.bin" }?.int("attempts") == 2)
        #expect(done.first { $0.string("path") == "a.bin" }?.string("sha256") == Generated.sha256Hex(size: 100, name: "a.bin"))
        let failed = try log.first("slice_failed")
        #expect(failed.string("path") == "gone.bin" && (failed["error"] as? [String: Any])?["http_status"] as? Int == 404, "\(failed.line)")
        #expect(failed.string("url") == fixture.url("/status/404"), "the URL keeps its query: \(failed.line)")
        #expect(try log.first("resource_done").string("resource") == "good")
        let broken = try log.first("resource_failed")
        #expect(broken.string("resource") == "broken" && broken.string("cause") == "slices_failed" && broken.int("slices_affected") == 1)
        let skipped = try log.first("resource_skipped")
        #expect(skipped.string("resource") == "after" && skipped.string("reason") == "depends on 'broken', which did not complete")
        let skippedSlice = try log.first("slice_skipped")
        #expect(skippedSlice.string("path") == "later.bin" && skippedSlice["bulk"] as? Bool == true)

        let end = try #require(log.end)
        #expect(end.int("exit_status") == 1 && end.isNull("stop_reason"))
        #expect(end.count("fetched") == 2 && end.count("failed") == 1 && end.count("skipped") == 1 && end.count("bytes_transferred") == 300)
        #expect(
            end.string("summary")
                == "Apply failed! Slices: 2 fetched (300 B), 0 resumed, 0 up to date, 1 failed, 0 deferred; 1 without digests (1 size only, 0 unverified).")

        // The same run id in the JSON summary and the JUnit properties.
        let json = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        #expect(json["run_id"] as? String == runID)
        let junit = try #require(fixture.directory.contents(of: "reports/junit.xml"))
        #expect(junit.components(separatedBy: #"<property name="run_id" value="\#(runID)"/>"#).count == 4, "\(junit)")
        for secret in [Self.token, Self.signature] {
            #expect(!log.text.contains(secret), "the events contain a secret:\n\(log.text)")
        }
        // The secret really was sent: its absence above means something.
        let sent = try await fixture.requests("/gen/100/a.bin", count: 1)
        #expect(sent.first?.header(named: "Authorization") == "Bearer \(Self.token)")
    }

    /// `--events -`: stdout is the stream and nothing else; the human log goes to stderr. The run
    /// id is a new ULID without `JOBRUN_RUN_ID`. With `--json` too, a usage error before anything.
    @Test func applyToStdout() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: r
                    slices:
                      - {path: one.bin, url: "\(fixture.url("/gen/64/one.bin"))", size: 64}

                """)
        let result = try await fixture.apply(["--events", "-"])
        #expect(result.status == 0, "\(result)")
        let log = EventLog(result.stdout)
        log.expectWellFormed()
        #expect(log.events.first.map { $0.run.wholeMatch(of: #/[0-9A-HJKMNP-TV-Z]{26}/#) != nil } == true, "\(log.text)")
        #expect(log.types == ["run_start", "plan", "resource_start", "slice_done", "resource_done", "origin_usage", "run_end"], "\(log.text)")
        #expect(result.stderr.contains("+ r: 1 fetched (64 B), 1 size only\n"), "\(result)")
        #expect(
            result.stderr.hasSuffix(
                "Apply complete! Slices: 1 fetched (64 B), 0 resumed, 0 up to date, 0 failed, 0 deferred; 1 without digests (1 size only, 0 unverified).\n"),
            "\(result)")

        let both = try await fixture.apply(["--events", "-", "--json"])
        #expect(both.status == 64 && both.stdout.isEmpty, "\(both)")
        #expect(both.stderr.contains("--json and --events - both write to stdout"), "\(both)")
        #expect(try fixture.server.requests(path: "/gen/64/one.bin").count == 1)
    }

    /// Progress comes every --progress-interval while transfers run; a signal stops the run:
    /// the stream says so (stop_requested, the slice cut in flight) and still ends with run_end
    /// and the signal's exit status.
    @Test func aSignalStopIsTold() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let size = 2 << 20
        // The request timeout outlasts the stall: the test, not the clock, ends it.
        try fixture.write(
            manifest: """
                version: 1
                defaults:
                  timeouts: {request: 10m}
                resources:
                  - id: first
                    slices:
                      - {path: slow.bin, url: "\(fixture.url(FaultServer.path("/gen/\(size)/slow.bin", faults: "stall_at=\(1 << 20)", "stall_s=300")))", size: \(size)}

                """)
        let apply = try fixture.startApply(["--events", "events.ndjson", "--progress-interval", "100ms"])
        defer { apply.kill() }
        let midway = await Poll.until(timeout: .seconds(120)) {
            fixture.size(of: "mirror/first/.slow.bin.jobrun-part") == 1 << 20
                && EventLog(fixture.directory.contents(of: "events.ndjson") ?? "").types.contains("progress")
        }
        try #require(midway, "the transfer never got half-way, or no progress event came: \(apply.stderr)")
        apply.signal(SIGTERM)
        let result = try #require(await apply.wait(timeout: .seconds(20)), "jobrun did not stop")
        #expect(result.status == 143, "\(result)")
        let log = try EventLog.read("events.ndjson", in: fixture.directory)
        log.expectWellFormed()
        let progress = log.all("progress")
        #expect(
            !progress.isEmpty
                && progress.allSatisfy {
                    $0.int("bytes_to_transfer") == size && $0.int("slices_to_transfer") == 1 && $0.int("running") == 1
                        && ($0["active_resources"] as? [String]) == ["first"]
                }, "\(log.text)")
        let stop = try log.first("stop_requested")
        #expect(stop.string("reason") == "signal" && stop.int("signal") == Int(SIGTERM))
        let cut = try log.first("slice_skipped")
        #expect(cut["cut_in_flight"] as? Bool == true && cut["partial_kept"] as? Bool == true, "\(cut.line)")
        #expect(try log.first("resource_failed").string("cause") == "unfinished")
        let end = try #require(log.end)
        #expect(end.int("exit_status") == 143 && end.string("stop_reason") == "signal" && end.int("signal") == Int(SIGTERM))
        #expect(end.string("summary")?.hasPrefix("Apply interrupted!") == true, "\(end.line)")
    }

    /// A signal before the transfers (here while waiting for a locked root), which cannot stop
    /// part-way, ends the process at once: after run_end.
    @Test func aSignalBeforeTheTransfersStillEndsTheStream() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let holder = try await ApplyLockTests.startHoldingApply(fixture)
        defer { holder.kill() }
        let waiter = try fixture.startApply(["--lock-timeout", "2m", "--events", "waiter.ndjson"])
        defer { waiter.kill() }
        let waiting = await Poll.until(timeout: .seconds(120)) {
            EventLog(fixture.directory.contents(of: "waiter.ndjson") ?? "").types.contains("lock_wait")
        }
        try #require(waiting, "no lock_wait: \(waiter.stderr)")
        waiter.signal(SIGINT)
        let result = try #require(await waiter.wait(timeout: .seconds(20)), "jobrun did not stop")
        #expect(result.status == 130 && result.signal == nil, "\(result)")
        let log = try EventLog.read("waiter.ndjson", in: fixture.directory)
        log.expectWellFormed()
        #expect(log.types == ["run_start", "lock_wait", "run_end"], "\(log.text)")
        #expect(log.end?.int("exit_status") == 130 && log.end?.string("stop_reason") == "signal" && log.end?.int("signal") == Int(SIGINT))
        #expect(holder.isRunning, "the holder was hit too")
    }

    /// plan and verify: run_start with the digest of the manifests in the order read, plan's
    /// counts, run_end with the command's exit status and summary; `-` leaves the text to stderr.
    @Test func planAndVerify() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-events")
        defer { directory.remove() }
        let a = """
            version: 1
            resources:
              - {id: a, base_url: "https://cdn.example.com/a/", slices: [{path: here.txt, size: 5}, {path: gone.txt, size: 3}]}

            """
        let b = """
            version: 1
            resources:
              - {id: b, base_url: "https://cdn.example.com/b/", slices: [{path: x.txt}]}

            """
        try directory.write(file: "manifests/a.yaml", contents: a)
        try directory.write(file: "manifests/b.yaml", contents: b)
        try directory.write(file: "mirror/a/here.txt", contents: "hello")
        try directory.write(file: "mirror/b/x.txt", contents: "x")
        let digest = PortableSHA256.hex(of: Array((a + b).utf8))

        let plan = try await Harness.run(
            ["plan", "manifests", "--output", "mirror", "--detailed-exitcode", "--events", "out/plan.ndjson"], in: directory.path,
            environment: ["JOBRUN_RUN_ID": "plan-1"])
        #expect(plan.status == 2, "\(plan)")
        #expect(plan.stdout.contains("Plan: 1 to fetch, 0 to resume, 0 to refetch (3 B)"), "\(plan)")
        let planLog = try EventLog.read("out/plan.ndjson", in: directory)
        planLog.expectWellFormed(runID: "plan-1")
        #expect(planLog.types == ["run_start", "plan", "run_end"], "\(planLog.text)")
        #expect(try planLog.first("run_start").string("manifests_sha256") == digest)
        #expect(try planLog.first("plan").int("up_to_date") == 2)
        let planEnd = try #require(planLog.end)
        #expect(planEnd.int("exit_status") == 2 && planEnd.count("fetch") == 1 && planEnd.count("resources") == 2)
        #expect(planEnd.string("summary")?.hasPrefix("Plan: 1 to fetch, 0 to resume, 0 to refetch (3 B)") == true, "\(planEnd.line)")

        let verify = try await Harness.run(["verify", "manifests", "--output", "mirror", "--events", "-"], in: directory.path)
        #expect(verify.status == 1, "\(verify)")
        let verifyLog = EventLog(verify.stdout)
        verifyLog.expectWellFormed()
        #expect(verifyLog.types == ["run_start", "run_end"], "\(verifyLog.text)")
        #expect(try verifyLog.first("run_start").string("manifests_sha256") == digest)
        let verifyEnd = try #require(verifyLog.end)
        #expect(verifyEnd.int("exit_status") == 1 && verifyEnd.count("missing") == 1 && verifyEnd.count("ok") == 2)
        #expect(verify.stderr.contains("- mirror/a/gone.txt: missing\n") && verify.stderr.contains("Verify: 2 ok, 0 mismatched, 1 missing"), "\(verify)")

        let json = try await Harness.run(
            ["verify", "manifests", "--output", "mirror", "--json"], in: directory.path, environment: ["JOBRUN_RUN_ID": "verify-2"])
        #expect(json.stdout.contains(#""run_id": "verify-2""#), "\(json)")
        let planJSON = try await Harness.run(["plan", "manifests", "--output", "mirror", "--json"], in: directory.path)
        #expect(planJSON.stdout.contains(#/"run_id": "[0-9A-HJKMNP-TV-Z]{26}"/#), "\(planJSON)")
    }

    /// Errors before the work: the stream still has run_start and run_end with the exit status
    /// (and the digest of what was read, if anything).
    @Test(arguments: ["plan", "apply", "verify"])
    func manifestErrorsEndTheStream(command: String) async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-events")
        defer { directory.remove() }
        let broken = "version: 1\nresources:\n  - {id: a, slices: [{path: x}]}\n"
        try directory.write(file: "broken.yaml", contents: broken)
        let invalid = try await Harness.run([command, "broken.yaml", "--events", "invalid.ndjson"], in: directory.path)
        #expect(invalid.status == 65, "\(invalid)")
        let log = try EventLog.read("invalid.ndjson", in: directory)
        log.expectWellFormed()
        #expect(log.types == ["run_start", "run_end"], "\(log.text)")
        #expect(try log.first("run_start").string("manifests_sha256") == PortableSHA256.hex(of: Array(broken.utf8)))
        #expect(log.end?.int("exit_status") == 65 && log.end?.isNull("summary") == true && (log.end?["counts"] as? [String: Any])?.isEmpty == true)

        let missing = try await Harness.run([command, "nothing.yaml", "--events", "missing.ndjson"], in: directory.path)
        #expect(missing.status == 66, "\(missing)")
        let missingLog = try EventLog.read("missing.ndjson", in: directory)
        missingLog.expectWellFormed()
        #expect(try missingLog.first("run_start").isNull("manifests_sha256"))
        #expect(missingLog.end?.int("exit_status") == 66)
    }

    /// A locked root (75), no room (74), a stale saved plan (1): each ends the stream with its
    /// status; the lock's holder is named with its run id.
    @Test func applyRefusalsEndTheStream() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let holder = try await ApplyLockTests.startHoldingApply(fixture, ["--events", "holder.ndjson"])
        defer { holder.kill() }
        var holderID: String?
        _ = await Poll.until(timeout: .seconds(120)) {
            holderID = EventLog(fixture.directory.contents(of: "holder.ndjson") ?? "").events.first?.run
            return holderID != nil
        }
        let id = try #require(holderID, "the holder wrote no run_start")

        let locked = try await fixture.apply(["--events", "locked.ndjson", "--lock-timeout", "100ms"])
        #expect(locked.status == 75, "\(locked)")
        let log = try EventLog.read("locked.ndjson", in: fixture.directory)
        log.expectWellFormed()
        #expect(log.types == ["run_start", "lock_wait", "run_end"], "\(log.text)")
        #expect(log.end?.int("exit_status") == 75)
        #if os(Linux)
        #expect(try log.first("lock_wait").string("holder")?.contains("(jobrun, run \(id), running for ") == true, "\(log.text)")
        #expect(locked.stderr.contains("locked by pid \(holder.pid) (jobrun, run \(id), running for "), "\(locked)")
        #endif
        holder.kill()

        let petabyte = 1 << 50
        try fixture.write(
            manifest: """
                version: 1
                resources:
                  - id: huge
                    slices:
                      - {path: huge.bin, url: "\(fixture.url("/gen/10/huge.bin"))", size: \(petabyte)}

                """, to: "huge.yaml")
        let full = try await fixture.apply(["--events", "full.ndjson"], manifest: "huge.yaml")
        #expect(full.status == 74, "\(full)")
        let fullLog = try EventLog.read("full.ndjson", in: fixture.directory)
        fullLog.expectWellFormed()
        #expect(fullLog.types == ["run_start", "plan", "run_end"] && fullLog.end?.int("exit_status") == 74, "\(fullLog.text)")

        let saved = try await fixture.run(["plan", "site.yaml", "--out", "plan.json"])
        #expect(saved.status == 0, "\(saved)")
        try fixture.write(manifest: (fixture.directory.contents(of: "site.yaml") ?? "") + "# changed\n")
        let stale = try await fixture.apply(["--events", "stale.ndjson"], manifest: "plan.json")
        #expect(stale.status == 1 && stale.stderr.contains("the saved plan is stale"), "\(stale)")
        let staleLog = try EventLog.read("stale.ndjson", in: fixture.directory)
        staleLog.expectWellFormed()
        #expect(staleLog.end?.int("exit_status") == 1 && staleLog.end?.isNull("summary") == true, "\(staleLog.text)")
    }

    /// An events file that cannot be opened, or an unusable run id, stops the command before it
    /// does anything (74, 64); a file that cannot be written is said once and leaves the outcome
    /// alone.
    @Test func eventsFileProblems() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-events")
        defer { directory.remove() }
        try directory.write(file: "site.yaml", contents: "version: 1\nresources:\n  - {id: a, base_url: \"https://cdn.example.com/\", slices: [{path: x}]}\n")
        try directory.makeDirectory("taken")
        let unopenable = try await Harness.run(["plan", "site.yaml", "--events", "taken"], in: directory.path)
        #expect(unopenable.status == 74 && unopenable.stdout.isEmpty, "\(unopenable)")
        #expect(unopenable.stderr.hasPrefix("jobrun: error: cannot open the events file 'taken': "), "\(unopenable)")

        // The run id is needed before the stream can start: an unusable one stops everything.
        let badID = try await Harness.run(["plan", "site.yaml", "--events", "bad.ndjson"], in: directory.path, environment: ["JOBRUN_RUN_ID": "a b"])
        #expect(badID.status == 64 && badID.stdout.isEmpty && !directory.exists("bad.ndjson"), "\(badID)")
        #expect(badID.stderr == "jobrun: error: JOBRUN_RUN_ID: the run id may only hold letters, digits and . _ : -\n", "\(badID)")

        let full = try await Harness.run(["plan", "site.yaml", "--events", "/dev/full"], in: directory.path)
        #expect(full.status == 74, "\(full)")
        #expect(full.stdout.contains("Plan: 1 to fetch"), "\(full)")
        let warning = "jobrun: error: cannot write the events to '/dev/full': No space left on device; the run goes on without them\n"
        #expect(full.stderr.components(separatedBy: warning).count == 2, "\(full)")
    }
}
