import JobrunCore
import JobrunManifest
import JobrunVerify

/// Finds the partial downloads a plan can resume: one directory listing per folder that holds
/// slices to transfer (not a stat per slice, so an empty mirror of a million slices stays cheap).
enum PartialScan {
    /// The partials of the slices of `resources` whose check `wants` (each resource with how
    /// many of its slices `checks` and `expectations` hold, in order, one entry per slice). Only folders that exist can hold one:
    /// a resource with no such slice, or whose folder is missing, costs at most one stat.
    static func find(
        for resources: some Sequence<(resource: Resource, count: Int)>, checks: [FileCheck], expectations: [FileExpectation], where wants: (FileCheck) -> Bool
    ) -> [String: [String: PartialDownload.Found]] {
        var candidates: [(root: String, relativePath: String)] = []
        var k = 0
        for (r, count) in resources {
            let range = k..<(k + count)
            k += count
            guard checks[range].contains(where: wants), FileStatus.isDirectory(atPath: r.folderPath) else { continue }
            for j in range where wants(checks[j]) { candidates.append((expectations[j].root, expectations[j].relativePath)) }
        }
        return candidates.isEmpty ? [:] : find(in: candidates)
    }

    /// Resumable partials by the slice's path relative to its output root, keyed by root.
    static func find(in candidates: [(root: String, relativePath: String)]) -> [String: [String: PartialDownload.Found]] {
        struct Folder: Hashable {
            var root: String
            var relativePath: String
        }
        var folders: [Folder: Set<String>] = [:]  // → file names wanted
        for c in candidates {
            let (folder, name) = SlashPath.split(c.relativePath)
            folders[Folder(root: c.root, relativePath: String(folder)), default: []].insert(String(name))
        }
        var found: [String: [String: PartialDownload.Found]] = [:]
        for (key, names) in folders {
            let root = key.root
            let folder = key.relativePath
            let path = folder.isEmpty ? root : root + "/" + folder
            guard let dir = opendir(path) else { continue }
            defer { closedir(dir) }
            let folderFD = dirfd(dir)
            while let entry = readdir(dir) {
                let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard let name = PartialDownload.fileName(ofPart: entryName), names.contains(name) else { continue }
                guard let partial = PartialDownload.find(in: folderFD, for: name) else { continue }
                let relative = folder.isEmpty ? name : folder + "/" + name
                found[root, default: [:]][relative] = partial
            }
        }
        return found
    }
}
