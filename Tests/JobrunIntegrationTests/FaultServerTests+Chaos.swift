import Foundation
import JobrunTestSupport
import Testing

/// Chaos mode: a fault drawn at random for a share of the content requests, as curl sees it and
/// as the log records it.
extension FaultServerTests {
    static let chaosSize = 5_000

    /// A fixture whose server draws from `faults` for `percent`% of the content requests.
    static func chaosFixture(percent: Double, seed: Int = 7, faults: [String] = [], only: [String] = []) throws -> Fixture {
        try Fixture(FaultServer.Options(chaos: FaultServer.Chaos(percent: percent, seed: seed, faults: faults, only: only)))
    }

    /// `count` requests for one URL, one after the other; the log's (fault, spec) of each.
    static func chaosSequence(_ fixture: Fixture, path: String, count: Int) async throws -> [String] {
        for _ in 0..<count { _ = try await fixture.curl(fixture.server.url(path)) }
        let log = try await fixture.server.waitForRequests { $0.count == count }
        return log.sorted { ($0.requestNumber ?? 0) < ($1.requestNumber ?? 0) }.map { "\($0.chaos ?? "-") \($0.chaosSpec ?? "")" }
    }

    /// Faults that answer at once (a stall would hold curl until its own timeout).
    static let promptFaults = ["reset", "truncate", "5xx", "429", "corrupt", "partial200"]

    @Test func theSameSeedDrawsTheSameFaultsForEveryURL() async throws {
        let path = "/gen/\(Self.chaosSize)/seq.bin"
        var sequences: [[String]] = []
        for seed in [7, 7, 8] {
            let fixture = try Self.chaosFixture(percent: 50, seed: seed, faults: Self.promptFaults)
            defer { fixture.finish() }
            sequences.append(try await Self.chaosSequence(fixture, path: path, count: 24))
        }
        #expect(sequences[0] == sequences[1])
        #expect(sequences[0] != sequences[2], "another seed, other draws")
        let faulted = sequences[0].filter { !$0.hasPrefix("-") }.count
        #expect((4...20).contains(faulted), "about half of 24 are faulted: \(sequences[0])")
    }

    @Test func percentZeroNeverFaultsAndTheControlRouteSetsIt() async throws {
        let fixture = try Self.chaosFixture(percent: 0, faults: Self.promptFaults)
        defer { fixture.finish() }
        let path = "/gen/\(Self.chaosSize)/zero.bin"
        let whole = Generated.bytes(size: Self.chaosSize, name: "zero.bin")
        for _ in 0..<30 {
            let response = try await fixture.curl(fixture.server.url(path))
            #expect(response.exitStatus == 0 && response.status == 200 && response.body == whole, "\(response)")
        }
        #expect(try fixture.server.requests().allSatisfy { $0.chaos == nil })

        let on = try await fixture.curl(fixture.server.url("/_chaos?percent=100"))
        #expect(on.status == 200 && String(decoding: on.body, as: UTF8.self).contains("\"percent\": 100.0"), "\(on)")
        _ = try await fixture.curl(fixture.server.url(path))
        _ = try await fixture.curl(fixture.server.url("/_chaos?percent=0"))
        _ = try await fixture.curl(fixture.server.url(path))
        let log = try await fixture.server.waitForRequests { $0.count == 34 }.filter { $0.pathWithoutQuery == path }
        #expect(log.count == 32 && log[30].chaos != nil && log[31].chaos == nil, "\(log.suffix(2))")
        let state = try await fixture.curl(fixture.server.url("/_chaos"))
        #expect(String(decoding: state.body, as: UTF8.self).contains("\"seed\": 7"), "\(state)")
        #expect(try await fixture.curl(fixture.server.url("/_chaos?percent=101")).status == 400)
    }

    /// Each kind, drawn for every request, does what its name says; its log spec says how.
    @Test(arguments: ["reset", "truncate", "stall", "5xx", "429", "corrupt", "partial200"])
    func aKindDrawnForAPlainGET(kind: String) async throws {
        let fixture = try Self.chaosFixture(percent: 100, faults: [kind])
        defer { fixture.finish() }
        let whole = Generated.bytes(size: Self.chaosSize, name: "k.bin")
        // The stall holds the body until curl gives up on a second without a byte.
        let response = try await fixture.curl(fixture.server.url("/gen/\(Self.chaosSize)/k.bin"), options: ["-y", "1", "-Y", "1"])
        let entry = try #require(try await fixture.server.waitForRequests { $0.count == 1 }.first)
        #expect(entry.chaos == kind, "\(entry)")
        let spec = entry.chaosSpec ?? ""
        func value(_ key: String) -> Int? {
            spec.split(separator: ";").first { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) }
        }
        switch kind {
        case "reset", "truncate", "stall":
            let at = try #require(value(kind == "reset" ? "reset_at" : kind == "truncate" ? "truncate_at" : "stall_at"), "\(spec)")
            #expect(at < Self.chaosSize && entry.bytesSent == at, "\(entry)")
            #expect(response.exitStatus == ["reset": 56, "truncate": 18, "stall": 28][kind], "\(response)")
            #expect(response.body.count <= at && response.body == Array(whole[..<response.body.count]))
            if kind == "truncate" { #expect(response.body.count == at) }
            if kind == "stall" { #expect(entry.clientDisconnected) }
        case "5xx":
            #expect([500, 502, 503, 504].contains(response.status) && value("status") == response.status, "\(response)")
        case "429":
            #expect(response.status == 429 && response.header("Retry-After") == "1", "\(response)")
        case "corrupt":
            let at = try #require(value("wrong_byte_at"), "\(spec)")
            let differing = zip(response.body, whole).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
            #expect(response.status == 200 && response.body.count == Self.chaosSize && differing == [at], "\(response)")
        case "partial200":
            let count = try #require(value("partial_200"), "\(spec)")
            #expect((1..<Self.chaosSize).contains(count), "\(spec)")
            #expect(response.status == 200 && response.header("Content-Range") == "bytes 0-\(count - 1)/\(Self.chaosSize)", "\(response)")
            #expect(response.body == Array(whole[..<count]))
        default:
            Issue.record("no expectation for \(kind)")
        }
    }

    /// The kinds that answer a resume: a request with `Range` and `If-Range`.
    @Test(arguments: ["etag", "norange", "partial200", "corrupt"])
    func aKindDrawnForAResume(kind: String) async throws {
        let fixture = try Self.chaosFixture(percent: 0, faults: [kind])
        defer { fixture.finish() }
        let path = "/gen/\(Self.chaosSize)/r.bin"
        let whole = Generated.bytes(size: Self.chaosSize, name: "r.bin")
        let etag = try #require(try await fixture.curl(fixture.server.url(path)).header("ETag"))
        _ = try await fixture.curl(fixture.server.url("/_chaos?percent=100"))
        let response = try await fixture.curl(fixture.server.url(path), options: ["-H", "Range: bytes=1000-", "-H", "If-Range: \(etag)"])
        let entry = try #require(try await fixture.server.waitForRequests { $0.count == 3 }.last)
        #expect(entry.chaos == kind, "\(entry)")
        switch kind {
        case "etag":
            #expect(response.status == 206 && response.header("Content-Range") == "bytes 1000-4999/5000", "\(response)")
            #expect(response.header("ETag") != etag && response.header("ETag") != nil, "the 206 is of another version")
            #expect(response.body == Array(Generated.bytes(size: Self.chaosSize, name: "r.bin", version: 1)[1_000...]))
        case "norange":
            #expect(response.status == 200 && response.body == whole && response.header("Accept-Ranges") == nil, "\(response)")
        case "partial200":
            #expect(response.status == 200 && response.header("Content-Range") == "bytes 1000-4999/5000", "\(response)")
            #expect(response.body == Array(whole[1_000...]))
        case "corrupt":
            let at = try #require(entry.chaosSpec.flatMap { Int($0.dropFirst("wrong_byte_at=".count)) })
            #expect((1_000..<Self.chaosSize).contains(at), "the corrupted byte is one the 206 carries: \(entry)")
            var expected = Array(whole[1_000...])
            expected[at - 1_000] ^= 0xFF
            #expect(response.status == 206 && response.body == expected && response.header("ETag") == etag, "\(response)")
        default:
            Issue.record("no expectation for \(kind)")
        }
    }

    /// A resume-only kind is never drawn for a plain GET; `only` keeps a kind to matching paths.
    @Test func kindsAreDrawnOnlyWhereTheyApply() async throws {
        let fixture = try Self.chaosFixture(percent: 100, faults: ["etag", "norange", "corrupt"], only: ["corrupt=^/gen/[0-9]+/digest/"])
        defer { fixture.finish() }
        let plain = try await fixture.curl(fixture.server.url("/gen/\(Self.chaosSize)/other/a.bin"))
        #expect(plain.status == 200 && plain.body == Generated.bytes(size: Self.chaosSize, name: "other/a.bin"), "\(plain)")
        let scoped = try await fixture.curl(fixture.server.url("/gen/\(Self.chaosSize)/digest/a.bin"))
        #expect(scoped.status == 200 && scoped.body != Generated.bytes(size: Self.chaosSize, name: "digest/a.bin"), "\(scoped)")
        let log = try await fixture.server.waitForRequests { $0.count == 2 }
        #expect(log.map(\.chaos) == [nil, "corrupt"], "\(log)")
    }

    @Test func aBadChaosOptionStopsTheServerFromStarting() {
        #expect(throws: FaultServerError.self) { _ = try Self.chaosFixture(percent: 30, faults: ["gremlins"]) }
        #expect(throws: FaultServerError.self) { _ = try Self.chaosFixture(percent: 130) }
        #expect(throws: FaultServerError.self) { _ = try Self.chaosFixture(percent: 30, only: ["corrupt=("]) }
    }
}
