/// Whether the network is metered (cellular, a tethered phone, a capped plan), and how that was
/// found out: the `metered` condition of discretionary work and of `cellular: false`.
///
/// ``source`` is always shown beside the value, because `unknown` counts as good and people need
/// to see why jobrun could not tell: `metered=unknown (no NetworkManager)`.
public struct MeteredState: Sendable, Equatable {
    /// The answer; `unknown` when nothing could say.
    public enum Value: String, Sendable, Equatable {
        case yes, no, unknown
    }

    public var value: Value
    /// Where the value came from, for people: `NetworkManager Metered=GUESS_YES`,
    /// `no NetworkManager`, `no system bus (…)`, `NetworkManager did not answer within 500 ms`.
    public var source: String

    public init(value: Value, source: String) {
        self.value = value
        self.source = source
    }

    /// Whether the network is known to be metered (`unknown` is not).
    public var isMetered: Bool { value == .yes }

    /// From NetworkManager's `Metered` property (`NMMetered`), NetworkManager's own guesses
    /// counted as what they guess:
    ///
    /// | `Metered`        | value   |
    /// |------------------|---------|
    /// | 1 YES            | yes     |
    /// | 3 GUESS_YES      | yes     |
    /// | 2 NO             | no      |
    /// | 4 GUESS_NO       | no      |
    /// | 0 UNKNOWN        | unknown |
    /// | any other number | unknown |
    public init(networkManagerMetered metered: UInt32) {
        let name = Self.meteredNames[metered] ?? String(metered)
        let value: Value
        switch metered {
        case 1, 3: value = .yes
        case 2, 4: value = .no
        default: value = .unknown
        }
        self.init(value: value, source: "NetworkManager Metered=\(name)")
    }

    /// The names NetworkManager gives its `NMMetered` values.
    static let meteredNames: [UInt32: String] = [0: "UNKNOWN", 1: "YES", 2: "NO", 3: "GUESS_YES", 4: "GUESS_NO"]
}
