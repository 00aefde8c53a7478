/// The folder at the top of every output root that jobrun keeps for itself: the mirror state
/// (`JobrunState`). No manifest may write into it, and `verify --extra` leaves it out.
public enum MirrorStateFolder {
    public static let name = ".jobrun"

    /// Whether `relativePath` (below an output root, normalised) is the folder or inside it.
    public static func contains(_ relativePath: some StringProtocol) -> Bool {
        relativePath == name || relativePath.hasPrefix(name + "/")
    }
}
