/// The names of the files jobrun keeps beside a slice's final file while fetching it: the partial
/// download `.NAME.jobrun-part` and its resume metadata `.NAME.jobrun-meta`.
///
/// No name a manifest or checksum list gives may have either form (``isReserved(_:)``): a slice
/// named like another slice's partial file would be overwritten by that slice's download, or be
/// committed in its place.
public enum WorkingFileName {
    public enum Kind: Sendable, Equatable {
        /// A partial download, resumed or restarted by a later `apply`.
        case partial
        /// What a later `apply` needs to resume a partial download.
        case metadata
    }

    static let prefix = "."
    static let partialSuffix = ".jobrun-part"
    static let metadataSuffix = ".jobrun-meta"

    public static func partial(for fileName: String) -> String { prefix + fileName + partialSuffix }
    public static func metadata(for fileName: String) -> String { prefix + fileName + metadataSuffix }

    /// What kind of working file a folder entry named `name` is; `nil` for any other name.
    public static func kind(of name: some StringProtocol) -> Kind? {
        guard name.utf8.first == UInt8(ascii: ".") else { return nil }
        if name.hasSuffix(partialSuffix) { return .partial }
        if name.hasSuffix(metadataSuffix) { return .metadata }
        return nil
    }

    /// Whether `component` (one name of a path) has the form of a working file's name, whichever
    /// file it would belong to.
    public static func isReserved(_ component: some StringProtocol) -> Bool { kind(of: component) != nil }

    /// The final file name whose partial download `name` is (``partial(for:)``'s inverse); `nil`
    /// for any other name.
    public static func fileName(ofPartial name: String) -> String? {
        kind(of: name) == .partial ? fileName(ofWorkingFile: name) : nil
    }

    /// The final file name a working file `name` of either kind belongs to; `nil` for any other name.
    public static func fileName(ofWorkingFile name: String) -> String? {
        guard let kind = kind(of: name) else { return nil }
        let suffix = kind == .partial ? partialSuffix : metadataSuffix
        guard name.utf8.count > prefix.utf8.count + suffix.utf8.count else { return nil }
        return String(name.dropFirst(prefix.count).dropLast(suffix.count))
    }
}
