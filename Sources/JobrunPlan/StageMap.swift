public import JobrunState

/// Where the files of resources published atomically are while a run builds their next version:
/// a path below a staged resource's published folder (`site/a.txt`) is in its stage
/// (`.jobrun/publish/site/next/a.txt`). A prune plans by published paths and moves files where
/// they are.
public struct StageMap: Sendable {
    /// By output root: each staged folder and its stage, below the root.
    var byRoot: [String: [(dest: String, stage: String)]] = [:]

    public init() {}

    /// Maps `dest` (below `root`) to `stage`.
    public mutating func add(root: String, dest: String, stage: String) {
        byRoot[root, default: []].append((dest, stage))
    }

    public var isEmpty: Bool { byRoot.isEmpty }

    /// Where the file at the published path `path` (below `root`) is: in its stage, or there.
    public func location(of path: String, root: String) -> String {
        guard let pairs = byRoot[root] else { return path }
        for (dest, stage) in pairs {
            if let rest = Self.rest(of: path, below: dest) { return stage + "/" + rest }
        }
        return path
    }

    /// What follows `folder/` in `path`, byte for byte (paths are compared as the file system
    /// does, not by canonical equivalence); `nil` when `path` is not below `folder`.
    static func rest(of path: String, below folder: String) -> String? {
        let bytes = path.utf8
        guard bytes.count > folder.utf8.count + 1, bytes.starts(with: folder.utf8),
            bytes[bytes.index(bytes.startIndex, offsetBy: folder.utf8.count)] == UInt8(ascii: "/")
        else { return nil }
        return String(Substring(bytes.dropFirst(folder.utf8.count + 1)))
    }

    /// The stage of the published folder `dest` below `root`, if it is staged.
    public func stage(of dest: String, root: String) -> String? {
        byRoot[root]?.first { $0.dest == dest }?.stage
    }

    /// The published path of `path` (below `root`) when it is in a stage; `nil` otherwise.
    public func publishedPath(of path: String, root: String) -> String? {
        guard let pairs = byRoot[root] else { return nil }
        for (dest, stage) in pairs {
            if let rest = Self.rest(of: path, below: stage) { return dest + "/" + rest }
        }
        return nil
    }

    /// `records` of `root` as the published folders would have them: those below a staged folder
    /// (its published version's) left out, those below its stage named by their published path.
    public func published(_ records: [StateStore.RecordedFile], root: String) -> [StateStore.RecordedFile] {
        guard let pairs = byRoot[root] else { return records }
        var seen: [StateStore.RecordedFile] = []
        seen.reserveCapacity(records.count)
        for var record in records {
            if pairs.contains(where: { Self.rest(of: record.path, below: $0.dest) != nil }) { continue }
            if let path = publishedPath(of: record.path, root: root) { record.path = path }
            seen.append(record)
        }
        return seen
    }
}
