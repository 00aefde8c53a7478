/// `/`-separated paths split at their last slash. One rule for every module: the folder is
/// everything before the last `/` (empty when there is none), the name everything after it.
public enum SlashPath {
    /// `a/b/c.ts` → folder `a/b`, name `c.ts`; `c.ts` and `/c.ts` → an empty folder, name
    /// `c.ts` (callers that care about a leading `/` look at it themselves); `a/` → folder `a`,
    /// an empty name.
    public static func split(_ path: String) -> (folder: Substring, name: Substring) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return (path[path.startIndex..<path.startIndex], path[...]) }
        return (path[..<slash], path[path.utf8.index(after: slash)...])
    }

    /// The folder of `path` as a path of its own: `a/b.yaml` → `a`, `b.yaml` → `.`, `/b.yaml` → `/`.
    public static func folder(of path: String) -> String {
        guard path.utf8.contains(UInt8(ascii: "/")) else { return "." }
        let folder = split(path).folder
        return folder.isEmpty ? "/" : String(folder)
    }
}
