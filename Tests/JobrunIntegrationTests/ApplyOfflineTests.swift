import Foundation
import JobrunTestSupport
import Testing

/// The offline pause through the real binary (docs/apply.md, "Offline"): the loopback server
/// stops mid-run, so every connection is refused, and starts again on the same port.
@Suite struct ApplyOfflineTests {
    static let count = 24
    static let size = 1_000

    static func name(_ k: Int) -> String { "s\(k < 10 ? "0" : "")\(k).bin" }

    /// A server whose answers to every slice but the first four stall mid-body: the run cannot
    /// end before the test takes the server away, which finds two transfers in flight.
    static func stallingServer() throws -> ApplyFixture {
        try ApplyFixture(FaultServer.Options(chaos: FaultServer.Chaos(percent: 100, faults: ["stall"], only: [#"stall=/s(0[4-9]|[12][0-9])\.bin$"#])))
    }

    /// `count` sized and digested slices, two at a time.
    static func manifest(port: Int) -> String {
        let slices = (0..<count).map { k in
            "      - {path: \(name(k)), size: \(size), sha256: \(Generated.sha256Hex(size: size, name: name(k)))}"
        }
        return """
            version: 1
            defaults:
              output: ./mirror
              concurrency: {per_host: 2}
            resources:
              - id: r
                base_url: http://127.0.0.1:\(port)/gen/\(size)/
                slices:
            \(slices.joined(separator: "\n"))

            """
    }

    /// Stops the server once jobrun has had the first slices answered (the others stall), and
    /// waits for jobrun to say it is offline.
    static func takeTheServerAway(_ fixture: ApplyFixture, from apply: BackgroundProcess) async throws {
        let answered = await Poll.until(timeout: .seconds(120)) { ((try? fixture.server.requests().count) ?? 0) >= 4 }
        try #require(answered, "jobrun did not start: \(apply.stderr)")
        fixture.server.stop()
        let offline = await Poll.until(timeout: .seconds(120)) {
            fixture.directory.contents(of: "events.ndjson")?.contains(#""type":"network_offline""#) == true
        }
        try #require(offline, "jobrun did not go offline: \(apply.stdout)\(apply.stderr)")
    }

    /// A server on `port` again. Another process may hold the port for a moment as the local end
    /// of a connection: the start is tried again until that has gone.
    static func restart(port: Int) async throws -> FaultServer {
        var server: FaultServer?
        var lastError = ""
        await Poll.until(timeout: .seconds(20), interval: .milliseconds(100)) {
            do {
                server = try FaultServer(FaultServer.Options(port: port))
            } catch {
                lastError = "\(error)"
            }
            return server != nil
        }
        return try #require(server, "no server on port \(port) again: \(lastError)")
    }

    /// Back within the wait: the run completes with no failed slice and no attempt spent on
    /// the network's absence; the events tell when it went offline and came back, and the
    /// summary how long it was offline.
    @Test func aServerBackWithinTheWaitCostsNoAttempt() async throws {
        let fixture = try Self.stallingServer()
        defer { fixture.finish() }
        let port = fixture.server.port
        try fixture.write(manifest: Self.manifest(port: port))
        let apply = try fixture.startApply(["--json", "--events", "events.ndjson", "--offline-wait", "2m"])
        defer { apply.kill() }
        try await Self.takeTheServerAway(fixture, from: apply)
        let second = try await Self.restart(port: port)
        defer { second.stop() }

        let result = try #require(await apply.wait(timeout: .seconds(90)), "jobrun did not finish: \(apply.stderr)")
        #expect(result.status == 0, "\(result)")
        let report = try ApplyJSON.decode(result.stdout, context: "\(result)")
        #expect(report.summary.fetched == Self.count && report.summary.failed == 0, "\(result)")
        let slices = report.resources.flatMap(\.slices)
        #expect(slices.allSatisfy { $0.attempts == 1 }, "attempts spent: \(slices.map { "\($0.path) \($0.attempts)" })")
        #expect(report.summary.offlineSeconds > 0)
        #expect(result.stderr.contains("; offline for "), "\(result)")

        let log = try EventLog.read("events.ndjson", in: fixture.directory)
        log.expectWellFormed()
        let offline = try log.first("network_offline")
        let origins = try #require(offline["origins"] as? [[String: Any]])
        #expect(origins.count == 1 && origins.first?["origin"] as? String == "http://127.0.0.1:\(port)", "\(offline.line)")
        #expect((origins.first?["error"] as? [String: Any])?["type"] as? String == "Connect", "\(offline.line)")
        #expect(offline.int("wait_ms") ?? 0 > 100_000, "\(offline.line)")
        let online = try log.first("network_online")
        #expect(online.seq > offline.seq && online.string("origin") == "http://127.0.0.1:\(port)")
        #expect(log.all("slice_failed").isEmpty)
        // The probes and the rest went to the origin itself, on its port again, and nothing was
        // fetched twice there.
        let again = try await second.settledRequests()
        #expect(!again.isEmpty && again.allSatisfy { $0.status == 200 }, "\(again.map { "\($0.path) \($0.status)" })")
        #expect(Set(again.map(\.path)).count == again.count)
        try await fixture.expectVerified()
    }

    /// Gone for longer than `--offline-wait`: the run stops with 75, says what it left, has
    /// failed nothing and kept what it had; once the server is back, the same command finishes.
    @Test func aServerGoneForLongerThanTheWaitExits75AndARerunCompletes() async throws {
        let fixture = try Self.stallingServer()
        defer { fixture.finish() }
        let port = fixture.server.port
        try fixture.write(manifest: Self.manifest(port: port))
        let apply = try fixture.startApply(["--events", "events.ndjson", "--offline-wait", "3s"])
        defer { apply.kill() }
        try await Self.takeTheServerAway(fixture, from: apply)

        let result = try #require(await apply.wait(timeout: .seconds(60)), "jobrun did not stop: \(apply.stderr)")
        #expect(result.status == 75, "\(result)")
        let last = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("Apply stopped offline: ") && last.hasSuffix(". Run the same command again to continue."), "\(result)")
        #expect(last.contains("; offline for ") && !last.contains("failed"), "\(result)")
        #expect(result.stderr.contains("jobrun: stopping: no origin answered for the whole --offline-wait"), "\(result)")
        let log = try EventLog.read("events.ndjson", in: fixture.directory)
        log.expectWellFormed()
        #expect(try log.first("stop_requested").string("reason") == "offline")
        #expect(log.end?.string("stop_reason") == "offline" && log.end?.int("exit_status") == 75)
        #expect(log.all("slice_failed").isEmpty && log.all("network_online").isEmpty)

        let second = try await Self.restart(port: port)
        defer { second.stop() }
        let rerun = try await fixture.apply()
        #expect(rerun.status == 0, "\(rerun)")
        #expect(rerun.stdout.contains("Apply complete!") && !rerun.stdout.contains("offline"), "\(rerun)")
        try await fixture.expectVerified()
    }

    /// A large slice cut mid-body by the network's going keeps its partial file through the
    /// pause, and the first request after it continues that file (`Range`): resumed, in one
    /// attempt.
    @Test func aPartialFileCutByThePauseIsResumedAfterIt() async throws {
        let fixture = try ApplyFixture(FaultServer.Options(chaos: FaultServer.Chaos(percent: 100, faults: ["stall"], only: [#"stall=/big\.bin$"#])))
        defer { fixture.finish() }
        let port = fixture.server.port
        let size = 2 << 20
        try fixture.write(
            manifest: """
                version: 1
                defaults: {output: ./mirror}
                resources:
                  - id: r
                    base_url: http://127.0.0.1:\(port)/gen/\(size)/
                    slices: [{path: big.bin, size: \(size), sha256: \(Generated.sha256Hex(size: size, name: "big.bin"))}]
                """)
        let apply = try fixture.startApply(["--json", "--events", "events.ndjson"])
        defer { apply.kill() }
        // The body stalls part of the way in: what arrived is in the partial file.
        let partial = "mirror/r/.big.bin.jobrun-part"
        try #require(await Poll.until(timeout: .seconds(120)) { (fixture.size(of: partial) ?? 0) > 0 }, "no partial file: \(apply.stderr)")
        fixture.server.stop()
        try #require(
            await Poll.until(timeout: .seconds(120)) {
                fixture.directory.contents(of: "events.ndjson")?.contains(#""type":"network_offline""#) == true
            }, "jobrun did not go offline: \(apply.stdout)\(apply.stderr)")
        let kept = try #require(fixture.size(of: partial))
        let second = try await Self.restart(port: port)
        defer { second.stop() }

        let result = try #require(await apply.wait(timeout: .seconds(90)), "jobrun did not finish: \(apply.stderr)")
        #expect(result.status == 0, "\(result)")
        let report = try ApplyJSON.decode(result.stdout, context: "\(result)")
        let slice = try #require(report.resources.first?.slices.first)
        #expect(slice.status == "resumed" && slice.attempts == 1, "\(slice)")
        let requests = try await second.settledRequests()
        let range = requests.first?.headers.first { $0.name.lowercased() == "range" }?.value
        #expect(requests.count == 1 && range == "bytes=\(kept)-", "kept \(kept): \(requests.map(\.description))")
        try await fixture.expectVerified()
    }

    #if os(Linux)
    /// A connect that times out (a listener that never completes a handshake) is as much the
    /// network gone as a refusal: the run pauses, and stops after the wait with nothing failed.
    @Test func aConnectThatTimesOutPausesTheRunToo() async throws {
        let blackhole = try FullListener()
        defer { blackhole.release() }
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        try fixture.write(
            manifest: """
                version: 1
                defaults: {output: ./mirror, timeouts: {connect: 1s}}
                resources:
                  - id: r
                    base_url: http://127.0.0.1:\(blackhole.port)/
                    slices: [{path: a.bin, size: 10}]
                """)
        let result = try await fixture.apply(["--offline-wait", "2s", "--events", "events.ndjson"])
        #expect(result.status == 75, "\(result)")
        let log = try EventLog.read("events.ndjson", in: fixture.directory)
        let offline = try log.first("network_offline")
        let error = (offline["origins"] as? [[String: Any]])?.first?["error"] as? [String: Any]
        #expect(error?["type"] as? String == "Timeout" && (error?["message"] as? String)?.hasPrefix("timed out connecting") == true, "\(offline.line)")
        #expect(log.all("slice_failed").isEmpty && log.end?.string("stop_reason") == "offline", "\(log.text)")
    }
    #endif

    /// `--offline-wait 0`: no pause, a refused connection is a failure like any other.
    @Test func aWaitOfZeroFailsAtOnce() async throws {
        let fixture = try ApplyFixture()
        defer { fixture.finish() }
        let port = fixture.server.port
        fixture.server.stop()
        try fixture.write(
            manifest: """
                version: 1
                defaults: {output: ./mirror, retries: {attempts: 2, backoff: {initial: 10ms, max: 10ms}}}
                resources:
                  - id: r
                    base_url: http://127.0.0.1:\(port)/gen/
                    slices: [{path: 10/a.bin, size: 10}]
                """)
        let result = try await fixture.apply(["--offline-wait", "0"])
        #expect(result.status == 1, "\(result)")
        #expect(!result.stdout.contains("offline"), "\(result)")
        #expect(result.stdout.contains("Connect: the connection was refused"), "\(result)")
    }
}
