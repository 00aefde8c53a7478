public import JobrunCore

/// How a resource's new files reach the programs that read its folder (`publish:`).
public struct PublishPolicy: Hashable, Sendable {
    public enum Mode: String, Hashable, Sendable, CaseIterable {
        /// Each file is renamed into place as it is verified: a reader during a run may see some
        /// files of the new version beside others of the old.
        case inPlace = "in_place"
        /// The new version is built in a stage beside the folder (unchanged files shared by hard
        /// link) and switched with the folder in one step once it is complete and verified: a
        /// reader sees the old version or the new one, never a mix.
        case atomic
    }

    public var mode: Mode = .inPlace
    /// How long a replaced version stays readable, beside the published one, after a switch: a
    /// reader that opened the folder before it keeps reading that version for this long.
    public var grace: Duration = Self.standardGrace

    public init(mode: Mode = .inPlace, grace: Duration = Self.standardGrace) {
        self.mode = mode
        self.grace = grace
    }

    public static let standardGrace = Duration.seconds(15 * 60)

    public var isAtomic: Bool { mode == .atomic }
}
