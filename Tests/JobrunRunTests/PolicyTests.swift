import JobrunCore
import JobrunManifest
import JobrunPlan
import JobrunOutcome
import Testing
@testable import JobrunRun
import JobrunFiles

@Suite struct BackoffTests {
    static let policy: Backoff = {
        var b = Backoff()
        b.initial = .seconds(1)
        b.maximum = .seconds(120)
        b.multiplier = 2
        return b
    }()

    @Test(arguments: [(1, 1000), (2, 2000), (3, 4000), (4, 8000), (8, 120_000), (30, 120_000)])
    func ceilingGrowsThenCaps(attempt: Int, ceilingMS: Int64) {
        #expect(Self.policy.delay(afterAttempt: attempt, random: 0) == .seconds(1))
        #expect(Self.policy.delay(afterAttempt: attempt, random: 1) == .milliseconds(ceilingMS))
    }

    /// Property: every delay lies within [initial, max] whatever the attempt and random draw.
    @Test func delaysStayWithinBounds() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let attempt = Int.random(in: 1...200, using: &generator)
            let r = Double.random(in: 0..<1, using: &generator)
            let d = Self.policy.delay(afterAttempt: attempt, random: r)
            #expect(d >= .seconds(1) && d <= .seconds(120), "attempt \(attempt) random \(r): \(d)")
        }
    }

    @Test func retryAfterIsClamped() {
        #expect(Self.policy.clampRetryAfter(.seconds(2)) == .seconds(2))
        #expect(Self.policy.clampRetryAfter(.seconds(-100)) == .zero)
        #expect(Self.policy.clampRetryAfter(.seconds(86_400)) == .seconds(120))
        #expect(Self.policy.clampRetryAfter(.seconds(Int64.max)) == .seconds(120))
    }
}

@Suite struct FailureClassificationTests {
    @Test func transientStatuses() {
        for status in [408, 429, 500, 502, 503, 504] { #expect(AttemptFailure.isTransient(status: status)) }
        for status in [400, 401, 403, 404, 410, 416, 501] { #expect(!AttemptFailure.isTransient(status: status)) }
    }

    @Test func typeNamesForJUnit() {
        #expect(AttemptFailure(kind: .http, status: 503, message: "", isTransient: true).typeName == "HTTP503")
        #expect(AttemptFailure(kind: .timeout, message: "", isTransient: true).typeName == "Timeout")
        #expect(AttemptFailure(kind: .diskFull, message: "", isTransient: false).typeName == "DiskFull")
    }
}

@Suite struct RedirectPolicyTests {
    static let secret = HeaderField(name: "X-Api-Key", value: "k", isSecret: false)
    static let plain = HeaderField(name: "User-Agent", value: "u", isSecret: false)

    @Test func sameOriginKeepsEveryHeader() {
        let d = RedirectPolicy.decide(
            location: "/b/c.ts", current: "https://h/a/x.ts", original: "https://h/a/x.ts", hops: 0, headers: [Self.secret, Self.plain])
        #expect(d == .follow(url: "https://h/b/c.ts", headers: [Self.secret, Self.plain]))
    }

    @Test func anotherPortHostOrSchemeDropsSecrets() {
        for location in ["http://h:8081/x", "http://other/x", "https://h/x"] {
            let d = RedirectPolicy.decide(location: location, current: "http://h/a", original: "http://h/a", hops: 0, headers: [Self.secret, Self.plain])
            #expect(d == .follow(url: location, headers: [Self.plain]), "\(location)")
        }
    }

    @Test func refusals() {
        #expect(
            RedirectPolicy.decide(location: "http://h/x", current: "https://h/a", original: "https://h/a", hops: 0, headers: [])
                == .refuse("redirect from https to http refused"))
        #expect(
            RedirectPolicy.decide(location: "ftp://h/x", current: "http://h/a", original: "http://h/a", hops: 0, headers: [])
                == .refuse("redirect to a ftp: URL refused"))
        #expect(
            RedirectPolicy.decide(location: "file:///etc/passwd", current: "http://h/a", original: "http://h/a", hops: 0, headers: [])
                == .refuse("redirect to a file: URL refused"))
        #expect(
            RedirectPolicy.decide(location: "/x", current: "http://h/a", original: "http://h/a", hops: 10, headers: []) == .refuse("more than 10 redirects"))
    }

    @Test func relativeReferences() throws {
        let base = try ParsedURL.parse("https://h:8443/dir/file.ts?sig=1").get()
        #expect(RedirectPolicy.resolve("other.ts", against: base) == "https://h:8443/dir/other.ts")
        #expect(RedirectPolicy.resolve("/root.ts", against: base) == "https://h:8443/root.ts")
        #expect(RedirectPolicy.resolve("//cdn/x", against: base) == "https://cdn/x")
        #expect(RedirectPolicy.resolve("http://a/b", against: base) == "http://a/b")
        #expect(RedirectPolicy.resolve("../up/./x?q=../a", against: base) == "https://h:8443/up/x?q=../a")
        #expect(RedirectPolicy.resolve("/a/../../b/..", against: base) == "https://h:8443/")
        #expect(RedirectPolicy.resolve("sub/.", against: base) == "https://h:8443/dir/sub/")
    }
}

@Suite struct ContentRangeTests {
    @Test func parses() {
        let r = ContentRange("bytes 100-199/200")
        #expect(r?.start == 100 && r?.end == 199 && r?.total == 200)
        #expect(ContentRange("bytes 0-9/*")?.total == nil)
        #expect(ContentRange("bytes */200") == nil)
        #expect(ContentRange("bytes 9-0/200") == nil)
        #expect(ContentRange("items 0-9/10") == nil)
        #expect(ContentRange("bytes 0-9/x") == nil)
    }
}

@Suite struct PartialMetadataTests {
    @Test func roundTripsAndRejectsTornFiles() {
        let m = PartialDownload.Metadata(identity: "https://h/a.ts", validator: .init(value: "\"abc\"", kind: .etag), totalSize: 1 << 30)
        #expect(PartialDownload.Metadata.decode(m.encoded()) == m)
        #expect(PartialDownload.Metadata.decode(Array(m.encoded().prefix(20))) == nil)
        #expect(PartialDownload.Metadata.decode(Array("{\"format_version\": 2}".utf8)) == nil)
        #expect(PartialDownload.partName(for: "a.ts") == ".a.ts.jobrun-part")
    }

    /// The plan's scan of a folder finds partial files by this inverse of `partName`.
    @Test func partNamesMapBackToTheirDestination() {
        for name in ["a.ts", ".hidden", "x", "seg.jobrun-part"] {
            #expect(PartialDownload.fileName(ofPart: PartialDownload.partName(for: name)) == name)
        }
        for other in [".jobrun-part", "..jobrun-part", "a.ts", ".a.ts.jobrun-meta", "a.ts.jobrun-part", ".a.ts.jobrun-par"] {
            #expect(PartialDownload.fileName(ofPart: other) == nil, "\(other)")
        }
    }
}

@Suite struct EngineChoiceTests {
    /// Which transfers take turns over the engines and which stay on the driven one.
    @Test(
        arguments: [
            (Int64?.none, false, true), (Int64?.none, true, true),
            (16 << 10, false, false), (64 << 10 - 1, false, false), (64 << 10, false, true),
            (128 << 10, false, true), (1 << 20, false, true), (512 << 20, false, true),
            (0, true, false), (16 << 10, true, false), (24 << 10 - 1, true, false), (24 << 10, true, true),
            (64 << 10, true, true), (512 << 20, true, true),
        ] as [(Int64?, Bool, Bool)])
    func largeTransfersTakeTurns(size: Int64?, overTLS: Bool, spreads: Bool) {
        #expect(TransferPlacement.takesTurns(size: size.map { ByteCount($0) }, overTLS: overTLS) == spreads)
        // An origin known to multiplex keeps to one engine (its slots are connections) but for
        // bodies of 1 MiB and more, whose work is worth a connection on the other engine.
        let large = size.map { $0 >= 1 << 20 } ?? false
        #expect(TransferPlacement.takesTurns(size: size.map { ByteCount($0) }, overTLS: overTLS, multiplexed: true) == large)
        // With one slot there (`per_host: 1`), it keeps to one connection whatever the size.
        #expect(!TransferPlacement.takesTurns(size: size.map { ByteCount($0) }, overTLS: overTLS, multiplexed: true, slotsPerHost: 1))
    }

    /// An unsized slice goes by its resource's bodies so far: none yet, it is taken to be large;
    /// then by their mean, which small bodies bring down.
    @Test func unsizedSlicesGoByTheMeanSoFar() {
        var estimate = BodySizeEstimate()
        #expect(estimate.mean == nil)
        estimate.observe(ByteCount(40 << 20))
        #expect(estimate.mean == ByteCount(40 << 20))
        #expect(TransferPlacement.takesTurns(size: estimate.mean, overTLS: false))
        #expect(TransferPlacement.receiveBuffer(forSize: estimate.mean) == TransferPlacement.largeReceiveBuffer)
        var small = BodySizeEstimate()
        for _ in 0..<9 { small.observe(ByteCount(2 << 10)) }
        small.observe(ByteCount(100 << 10))
        let expected = ByteCount((9 * 2048 + 102_400) / 10)
        #expect(small.mean == expected)
        #expect(!TransferPlacement.takesTurns(size: small.mean, overTLS: false))
        #expect(TransferPlacement.receiveBuffer(forSize: small.mean) == nil)
        var huge = BodySizeEstimate()
        huge.observe(.max)
        huge.observe(.max)
        #expect(huge.mean == ByteCount(Int64.max / 2))
    }

    /// Every slice large enough for the big receive buffer is also spread, and TLS spreads no
    /// later than plain HTTP (decryption adds work per byte).
    @Test func largeSlicesAreSpread() {
        #expect(TransferPlacement.spreadSliceSize <= TransferPlacement.largeSliceSize)
        #expect(TransferPlacement.spreadTLSSliceSize <= TransferPlacement.spreadSliceSize)
        #expect(TransferPlacement.takesTurns(size: TransferPlacement.largeSliceSize, overTLS: false))
    }
}

@Suite struct HostConnectionsTests {

    /// libcurl's connections to a host: the largest `per_host` (a host is an origin, its
    /// connections its slots), or through a proxy, the largest `total` (every origin's
    /// HTTP/1.1 transfers share the proxy's host).
    @Test func connectionsPerHostAreTheSlotsOrThroughAProxyTheTotal() {
        let limits = [ConcurrencyLimits(total: 8, perHost: 2), ConcurrencyLimits(total: 20, perHost: 6)]
        #expect(HostConnections.limit(for: limits) { _ in nil } == 6)
        #expect(HostConnections.limit(for: limits) { $0 == "http_proxy" ? "" : nil } == 6, "an empty variable is no proxy")
        for variable in ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
            #expect(HostConnections.limit(for: limits) { $0 == variable ? "http://proxy:3128" : nil } == 20, "\(variable)")
        }
        #expect(HostConnections.limit(for: limits) { $0 == "HTTP_PROXY" ? "http://proxy:3128" : nil } == 6, "libcurl ignores HTTP_PROXY")
        #expect(HostConnections.limit(for: []) { _ in nil } == ConcurrencyLimits().perHost)
    }
}
