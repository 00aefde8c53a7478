import Foundation
import JobrunCore
import JobrunSystem

/// What a directory holds, for asserting that a command created (or leaked) nothing.
///
///     let before = DirectoryTree.entries(under: dir.path)
///     … run jobrun …
///     #expect(DirectoryTree.entries(under: dir.path) == before)
///
/// The mirror state's folder (`.jobrun/`) at the top of the tree walked is left out: it is
/// jobrun's, not the mirror's (tests of the state look at it directly). Deeper down (a mirror in
/// a folder the test walks), it is listed.
public enum DirectoryTree {
    /// Every entry below `root` as a path relative to it, sorted bytewise: folders end with `/`,
    /// symbolic links with `@` (never followed). Empty when `root` does not exist.
    public static func entries(under root: String) -> [String] {
        var found: [String] = []
        walk(root, relative: "") { relative, kind in
            switch kind {
            case .directory: found.append(relative + "/")
            case .symbolicLink: found.append(relative + "@")
            case .file: found.append(relative)
            }
        }
        return found.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// The regular files below `root` (links not followed) as absolute paths, sorted.
    public static func files(under root: String) -> [String] {
        var found: [String] = []
        walk(root, relative: "") { relative, kind in
            if kind == .file { found.append(root + "/" + relative) }
        }
        return found.sorted()
    }

    /// Copies `source` (a file or a folder, recursively) to `destination`, creating parents.
    public static func copy(_ source: String, to destination: String) throws {
        let parent = (destination as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
    }

    private enum Kind { case file, directory, symbolicLink }

    private static func walk(_ root: String, relative: String, _ visit: (String, Kind) -> Void) {
        let directory = relative.isEmpty ? root : root + "/" + relative
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where !(relative.isEmpty && name == MirrorStateFolder.name) {
            let child = relative.isEmpty ? name : relative + "/" + name
            let type = (try? FileManager.default.attributesOfItem(atPath: root + "/" + child))?[.type] as? FileAttributeType
            switch type {
            case .typeSymbolicLink?:
                visit(child, .symbolicLink)
            case .typeDirectory?:
                visit(child, .directory)
                walk(root, relative: child, visit)
            default:
                visit(child, .file)
            }
        }
    }
}
