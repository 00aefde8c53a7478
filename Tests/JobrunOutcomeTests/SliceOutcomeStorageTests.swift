import JobrunCore
import Testing
@testable import JobrunManifest
@testable import JobrunOutcome

/// An outcome is kept for every slice of a run: its rare fields are boxed and its numbers
/// packed, and each reads back as it was set.
@Suite struct SliceOutcomeStorageTests {
    @Test func fieldsReadBackAsSet() {
        var o = SliceOutcome(status: .fetched, bytesTransferred: 7, size: 0, attempts: 3, duration: .milliseconds(1500), httpVersion: "1.1")
        #expect(o.size == 0 && o.attempts == 3 && o.duration == .milliseconds(1500) && o.httpVersion == "1.1")
        #expect(o.failure == nil && o.displayURL == nil && o.skipReason == nil)
        o.size = nil
        #expect(o.size == nil)
        o.size = 1 << 50
        #expect(o.size == 1 << 50)
        for version in [nil, "1.0", "1.1", "2", "3"] as [String?] {
            o.httpVersion = version
            #expect(o.httpVersion == version)
        }
        o.duration = .seconds(86_400 * 365) + .nanoseconds(1)
        #expect(o.duration == .seconds(86_400 * 365) + .nanoseconds(1))
        // The failure and the redirect's URL share a box: setting one keeps the other.
        let failure = AttemptFailure(kind: .http, status: 503, message: "HTTP 503", isTransient: true)
        o.displayURL = "https://other.example/x"
        o.failure = failure
        #expect(o.failure == failure && o.displayURL == "https://other.example/x")
        let copy = o
        o.displayURL = nil
        #expect(o.failure == failure && o.displayURL == nil)
        #expect(copy.displayURL == "https://other.example/x", "a copy keeps its own")
        o.failure = nil
        #expect(o.failure == nil)
        o.attempts = Int.max
        #expect(o.attempts == Int(Int32.max))
        #expect(MemoryLayout<SliceOutcome>.size <= 72)
    }

    /// An outcome without a URL of its own shows its slice's identity.
    @Test func theDisplayURLDefaultsToTheSlicesIdentity() {
        let here = SourceLocation(file: "m.yaml", line: 1, column: 1)
        let resource = Resource(
            id: "r", location: here, manifestFile: "m.yaml", baseURL: "https://h.example/r/", outputRoot: "out", dest: "r",
            dependsOn: [], checksum: nil, settings: ResourceSettings(),
            slices: [Slice(path: "a b.ts", location: here), Slice(path: "c.ts", url: "https://o.example/c.ts?sig=2#f", location: here)])
        let entry = ApplyResult.Entry(
            resource: resource,
            outcomes: [
                SliceOutcome(status: .fetched), SliceOutcome(status: .fetched),
            ])
        #expect(entry.displayURL(at: 0) == "https://h.example/r/a%20b.ts")
        #expect(entry.displayURL(at: 1) == "https://o.example/c.ts")
        var redirected = entry
        redirected.outcomes[0].displayURL = "https://mirror.example/a"
        #expect(redirected.displayURL(at: 0) == "https://mirror.example/a")
    }

    @Test func slicesKeepTheirOwnURLAndHeaders() {
        let here = SourceLocation(file: "m.yaml", line: 2, column: 3)
        var s = Slice(path: "a.ts", size: 12, location: here)
        #expect(s.url == nil && s.headers.isEmpty && s.size == 12)
        s.headers = [HeaderField(name: "X-A", value: "1", isSecret: false)]
        s.url = "https://h.example/a.ts"
        #expect(s.url == "https://h.example/a.ts" && s.headers.map(\.name) == ["X-A"])
        s.url = nil
        #expect(s.url == nil && s.headers.map(\.name) == ["X-A"])
        s.size = nil
        #expect(s.size == nil)
        s.size = 0
        #expect(s.size == 0)
        #expect(MemoryLayout<Slice>.size <= 64)
    }
}
