import Foundation
import JobrunTestSupport
import Testing

/// The server-wide options that make one server a flakier or slower origin than another:
/// connections refused at random (`--refuse-percent`), a fixed latency per response
/// (`--latency-ms`) and a paced body (`--slow-ms-per-kib`), as curl sees them and as the log
/// records them.
extension FaultServerTests {
    /// What `/_refused` answers.
    struct RefusalState: Decodable {
        var percent: Double
        var seed: Int
        var accepted: Int
        var refused: Int
    }

    /// Whether each of `count` fresh connections (one curl run, one request each) was refused, in
    /// order; checks that every one was either answered or reset, and that the log agrees.
    static func refusals(_ fixture: Fixture, count: Int) async throws -> [Bool] {
        var refused: [Bool] = []
        for index in 0..<count {
            let response = try await fixture.curl(fixture.server.url("/gen/100/c\(index).bin"))
            let isRefused = response.exitStatus != 0
            #expect(isRefused ? response.exitStatus == 56 && response.status == 0 : response.status == 200, "\(index): \(response)")
            refused.append(isRefused)
        }
        let answered = refused.filter { !$0 }.count
        // The requests whose responses have ended, and the refusals (logged before the reset).
        let log = try await fixture.server.waitForRequests { $0.count == answered }
        let resets = try fixture.server.refusedConnections()
        #expect(resets.count == count - answered, "\(resets)")
        #expect(Set(log.map(\.path)) == Set(refused.indices.filter { !refused[$0] }.map { "/gen/100/c\($0).bin" }))
        // Connections are numbered as accepted, refused ones included.
        #expect(resets.map(\.connectionID) == refused.indices.filter { refused[$0] }.map { $0 + 1 }, "\(resets)")
        #expect(resets.allSatisfy { $0.port == fixture.server.port && $0.scheme == "http" && $0.endTime >= $0.time })
        return refused
    }

    /// `/_refused` (with `query`), asked until a connection is not refused; the state and how
    /// many connections that took.
    static func refusalState(_ fixture: Fixture, query: String = "") async throws -> (state: RefusalState, connections: Int) {
        for attempt in 1...30 {
            let response = try await fixture.curl(fixture.server.url("/_refused" + query))
            guard response.exitStatus == 0 else { continue }
            #expect(response.status == 200, "\(response)")
            return (try JSONDecoder().decode(RefusalState.self, from: Data(response.body)), attempt)
        }
        throw FaultServerError(message: "/_refused: 30 connections refused in a row")
    }

    @Test func aShareOfTheConnectionsIsRefusedAndTheLogCountsExactlyThose() async throws {
        var runs: [[Bool]] = []
        for seed in [11, 11, 12] {
            let fixture = try Fixture(FaultServer.Options(refusePercent: 50, refuseSeed: seed))
            defer { fixture.finish() }
            runs.append(try await Self.refusals(fixture, count: 40))
            if runs.count == 1 {
                let refused = runs[0].filter { $0 }.count
                #expect((8...32).contains(refused), "about half of 40 are refused: \(runs[0])")
                let (state, connections) = try await Self.refusalState(fixture)
                #expect(state.percent == 50 && state.seed == seed)
                #expect(state.accepted == 40 + connections, "the control route's own connections count too: \(state)")
                let logged = try fixture.server.refusedConnections().count
                #expect(state.refused == refused + connections - 1 && state.refused == logged, "\(state), \(logged) logged")
                let log = try await fixture.server.waitForRequests { $0.contains { $0.path == "/_refused" } }
                #expect(log.count == 40 - refused + 1, "\(log)")
            }
        }
        #expect(runs[0] == runs[1], "the same seed refuses the same connection numbers")
        #expect(runs[0] != runs[2], "another seed, other connections")
    }

    @Test func percentZeroRefusesNoneAndTheControlRouteSetsIt() async throws {
        let fixture = try Fixture(FaultServer.Options(refusePercent: 0))
        defer { fixture.finish() }
        #expect(try await Self.refusals(fixture, count: 20) == Array(repeating: false, count: 20))
        let (state, _) = try await Self.refusalState(fixture, query: "?percent=100")
        #expect(state.percent == 100 && state.accepted == 21 && state.refused == 0, "\(state)")
        for index in 0..<5 {
            let response = try await fixture.curl(fixture.server.url("/gen/100/after\(index).bin"))
            #expect(response.exitStatus == 56 && response.status == 0, "\(response)")
        }
        #expect(try fixture.server.refusedConnections().map(\.connectionID) == Array(22...26))
        #expect(try await fixture.server.waitForRequests { $0.count == 21 }.last?.path == "/_refused?percent=100")
        let control = try await fixture.curl(fixture.server.url("/_refused"))
        #expect(control.exitStatus == 56, "a connection is refused before its request is read, whatever the route: \(control)")
    }

    @Test func percentHundredRefusesEveryConnectionOnEveryListener() async throws {
        let fixture = try Fixture(FaultServer.Options(hasSecondPort: true, refusePercent: 100))
        defer { fixture.finish() }
        #expect(try await Self.refusals(fixture, count: 10) == Array(repeating: true, count: 10))
        let second = try await fixture.curl(try fixture.server.url("/gen/100/second.bin", on: .second))
        #expect(second.exitStatus == 56 && second.status == 0, "\(second)")
        let resets = try fixture.server.refusedConnections()
        #expect(resets.count == 11 && resets.last?.port == fixture.server.secondPort && resets.last?.connectionID == 11, "\(resets)")
        #expect(try fixture.server.requests().isEmpty)
    }

    @Test func aBadOriginOptionStopsTheServerFromStarting() {
        #expect(throws: FaultServerError.self) { _ = try FaultServer(FaultServer.Options(refusePercent: 130)) }
        #expect(throws: FaultServerError.self) { _ = try FaultServer(FaultServer.Options(latency: .milliseconds(-1))) }
        #expect(throws: FaultServerError.self) { _ = try FaultServer(FaultServer.Options(timePerKiB: .milliseconds(-1))) }
    }

    /// How long one curl run takes, from before it starts until it has exited.
    static func timed(_ work: () async throws -> Curl.Response) async throws -> (Curl.Response, Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await work()
        return (response, start.duration(to: clock.now))
    }

    @Test func latencyComesBeforeEveryCountedResponse() async throws {
        let fixture = try Fixture(FaultServer.Options(latency: .milliseconds(300)))
        defer { fixture.finish() }
        let (content, contentTime) = try await Self.timed { try await fixture.curl(fixture.server.url("/gen/10/l.bin")) }
        #expect(content.status == 200 && content.body == Generated.bytes(size: 10, name: "l.bin"), "\(content)")
        #expect(contentTime >= .milliseconds(300), "\(contentTime)")
        let (status, statusTime) = try await Self.timed { try await fixture.curl(fixture.server.url("/status/503")) }
        #expect(status.status == 503 && statusTime >= .milliseconds(300), "\(statusTime)")
        _ = try await fixture.curl(fixture.server.url("/_digest/gen/10/l.bin"))

        let log = try await fixture.server.waitForRequests { $0.count == 3 }
        #expect(log.prefix(2).allSatisfy { $0.endTime - $0.time >= 0.3 }, "\(log.map { $0.endTime - $0.time })")
        // The control routes answer at once, whatever the latency.
        #expect(log[2].path == "/_digest/gen/10/l.bin" && log[2].endTime - log[2].time < 0.3, "\(log[2].endTime - log[2].time)")
    }

    @Test func aContentBodyIsPacedToItsSizeTimesTheTimePerKiB() async throws {
        let fixture = try Fixture(FaultServer.Options(timePerKiB: .milliseconds(10)))
        defer { fixture.finish() }
        let (plain, plainTime) = try await Self.timed { try await fixture.curl(fixture.server.url("/gen/51200/p.bin")) }
        #expect(plain.status == 200 && plain.body == Generated.bytes(size: 51_200, name: "p.bin"), "\(plain)")
        #expect(plainTime >= .milliseconds(500), "50 KiB at 10 ms per KiB: \(plainTime)")
        let chunked = FaultServer.path("/gen/20480/c.bin", faults: "transfer_encoding=chunked")
        let (coded, codedTime) = try await Self.timed { try await fixture.curl(fixture.server.url(chunked)) }
        #expect(coded.status == 200 && coded.body == Generated.bytes(size: 20_480, name: "c.bin"), "\(coded)")
        #expect(codedTime >= .milliseconds(200), "20 KiB at 10 ms per KiB: \(codedTime)")
        let digest = try await fixture.curl(fixture.server.url("/_digest/gen/51200/p.bin"))
        #expect(String(decoding: digest.body, as: UTF8.self) == Generated.sha256Hex(size: 51_200, name: "p.bin") + "\n")

        let log = try await fixture.server.waitForRequests { $0.count == 3 }
        #expect(log[0].endTime - log[0].time >= 0.49 && log[1].endTime - log[1].time >= 0.19, "\(log.map { $0.endTime - $0.time })")
        // Not paced: the digest's body is 65 bytes of hex, but its 50 KiB are not sent.
        #expect(log[2].endTime - log[2].time < 0.5, "\(log[2].endTime - log[2].time)")
    }

    /// Three origins as the soak runs them: one refusing half its connections, one five times
    /// slower; the slow one's body takes five times the pace of the others at least.
    @Test func aSlowerOriginTakesItsMultipleOfTheTime() async throws {
        let pace = Duration.milliseconds(2)
        let fast = try Fixture(FaultServer.Options(timePerKiB: pace))
        defer { fast.finish() }
        let slow = try Fixture(FaultServer.Options(latency: .milliseconds(50), timePerKiB: pace * 5))
        defer { slow.finish() }
        let (fastResponse, fastTime) = try await Self.timed { try await fast.curl(fast.server.url("/gen/40960/o.bin")) }
        let (slowResponse, slowTime) = try await Self.timed { try await slow.curl(slow.server.url("/gen/40960/o.bin")) }
        #expect(fastResponse.body == slowResponse.body && slowResponse.body.count == 40_960)
        #expect(fastTime >= pace * 40 && slowTime >= pace * 5 * 40 + .milliseconds(50), "\(fastTime), \(slowTime)")
    }
}
