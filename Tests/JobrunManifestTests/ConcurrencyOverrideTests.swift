import JobrunCore
import Testing
@testable import JobrunManifest

/// `--concurrency` and `--per-host` replace every resource's limits at load time, whether the
/// limit came from `defaults`, from the resource, or from jobrun's own default.
@Suite struct ConcurrencyOverrideTests {
    static let manifest = """
        version: 1
        defaults:
          concurrency: {total: 8, per_host: 2}
        resources:
          - id: inherits
            base_url: https://example.com/
            slices: [{path: a.bin}]
          - id: own
            base_url: https://example.com/
            concurrency: {total: 64, per_host: 16}
            slices: [{path: b.bin}]
          - id: partial
            base_url: https://example.com/
            concurrency: {per_host: 3}
            slices: [{path: c.bin}]

        """

    static let bare = """
        version: 1
        resources:
          - id: plain
            base_url: https://example.com/
            slices: [{path: a.bin}]

        """

    static func limits(_ yaml: String, _ override: ConcurrencyOverride) -> (limits: [String: ConcurrencyLimits], warnings: [String]) {
        var options = ManifestLoader.Options()
        options.concurrency = override
        let result = ManifestLoader.load(memory: [("m.yaml", Array(yaml.utf8))], manifests: ["m.yaml"], options: options)
        let limits = Dictionary(uniqueKeysWithValues: (result.manifest?.resources ?? []).map { ($0.id, $0.settings.concurrency) })
        return (limits, result.diagnostics.filter { $0.severity == .warning }.map(\.message))
    }

    static func limits(total: Int, perHost: Int) -> ConcurrencyLimits {
        ConcurrencyLimits(total: total, perHost: perHost)
    }

    @Test func withoutAnOverrideTheManifestsSay() {
        let loaded = Self.limits(Self.manifest, ConcurrencyOverride())
        #expect(loaded.limits["inherits"] == Self.limits(total: 8, perHost: 2))
        #expect(loaded.limits["own"] == Self.limits(total: 64, perHost: 16))
        #expect(loaded.limits["partial"] == Self.limits(total: 8, perHost: 3))
    }

    /// A multiplexed connection's streams: 32 unless a manifest says, inherited from `defaults`,
    /// and not touched by the command line's limits.
    @Test func streamsAreTheManifestsOwn() {
        let yaml = Self.manifest.replacingOccurrences(of: "concurrency: {total: 64, per_host: 16}", with: "concurrency: {total: 64, per_host: 16, streams: 8}")
        let loaded = Self.limits(yaml, ConcurrencyOverride(total: 1, perHost: 1))
        #expect(loaded.limits["own"]?.streams == 8 && loaded.limits["inherits"]?.streams == 32)
        let fromDefaults = Self.limits(
            Self.bare.replacingOccurrences(of: "resources:", with: "defaults:\n  concurrency: {streams: 1}\nresources:"), ConcurrencyOverride())
        #expect(fromDefaults.limits["plain"]?.streams == 1 && fromDefaults.limits["plain"]?.perHost == 4)
        let adaptive = Self.limits(
            Self.bare.replacingOccurrences(of: "resources:", with: "defaults:\n  concurrency: {adaptive: true}\nresources:"), ConcurrencyOverride(perHost: 9))
        #expect(adaptive.limits["plain"]?.adaptive == true && adaptive.limits["plain"]?.perHost == 9)
        #expect(Self.limits(Self.bare, ConcurrencyOverride()).limits["plain"]?.adaptive == false)
    }

    @Test func bothLimitsReplaceEveryResourcesOwn() {
        let loaded = Self.limits(Self.manifest, ConcurrencyOverride(total: 1, perHost: 1))
        for id in ["inherits", "own", "partial"] {
            #expect(loaded.limits[id] == Self.limits(total: 1, perHost: 1), "\(id)")
        }
        #expect(Self.limits(Self.bare, ConcurrencyOverride(total: 1, perHost: 1)).limits["plain"] == Self.limits(total: 1, perHost: 1))
    }

    @Test func oneLimitLeavesTheOtherAsTheManifestsSay() {
        let total = Self.limits(Self.manifest, ConcurrencyOverride(total: 5))
        #expect(total.limits["inherits"] == Self.limits(total: 5, perHost: 2))
        #expect(total.limits["own"] == Self.limits(total: 5, perHost: 16))
        #expect(total.limits["partial"] == Self.limits(total: 5, perHost: 3))
        let perHost = Self.limits(Self.manifest, ConcurrencyOverride(perHost: 1))
        #expect(perHost.limits["inherits"] == Self.limits(total: 8, perHost: 1))
        #expect(perHost.limits["own"] == Self.limits(total: 64, perHost: 1))
        #expect(perHost.limits["partial"] == Self.limits(total: 8, perHost: 1))
        #expect(Self.limits(Self.bare, ConcurrencyOverride(perHost: 2)).limits["plain"] == Self.limits(total: 16, perHost: 2))
    }

    /// The manifest's warning about `per_host` above `total` is about values an override
    /// replaces, so it is not given then.
    @Test func theManifestsPerHostWarningIsLeftOutUnderAnOverride() {
        let yaml = Self.bare.replacingOccurrences(of: "resources:", with: "defaults:\n  concurrency: {total: 2, per_host: 4}\nresources:")
        #expect(Self.limits(yaml, ConcurrencyOverride()).warnings == ["'per_host' (4) is larger than 'total' (2); at most 2 slots are in use at once"])
        #expect(Self.limits(yaml, ConcurrencyOverride(total: 8)).warnings.isEmpty)
    }

    @Test func aCommandLineValueFillsOnlyWhatTheOtherLeavesOut() {
        let saved = ConcurrencyOverride(total: 4, perHost: 2)
        #expect(ConcurrencyOverride(perHost: 1).over(saved) == ConcurrencyOverride(total: 4, perHost: 1))
        #expect(ConcurrencyOverride().over(saved) == saved)
        #expect(ConcurrencyOverride(total: 9, perHost: 3).over(saved) == ConcurrencyOverride(total: 9, perHost: 3))
    }
}
