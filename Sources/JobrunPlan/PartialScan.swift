import JobrunCore
import JobrunManifest
import JobrunFiles
import JobrunSystem

/// Finds the partial downloads a plan can resume: one directory listing per folder that holds
/// slices to transfer (not a stat per slice, so an empty mirror of a million slices stays cheap).
enum PartialScan {
    /// The partials of the slices of `resources` whose check `wants` (each resource with how
    /// many of its slices `checks` and `expectations` hold, in order, one entry per slice). Only folders that exist can hold one:
    /// a resource with no such slice, or whose folder is missing, costs at most one stat.
    static func find(
        for resources: some Sequence<(resource: Resource, count: Int)>, checks: [FileCheck], expectations: [FileExpectation], where wants: (FileCheck) -> Bool
    ) -> [String: [String: PartialDownload.Found]] {
        var listings = Listings()
        return find(for: resources, checks: checks, expectations: expectations, listings: &listings, where: wants)
    }

    /// ``find(for:checks:expectations:where:)`` for one batch of a plan made in batches: each
    /// folder is listed once for all of them (`listings` keeps what was listed).
    static func find(
        for resources: some Sequence<(resource: Resource, count: Int)>, checks: [FileCheck], expectations: [FileExpectation],
        listings: inout Listings, where wants: (FileCheck) -> Bool
    ) -> [String: [String: PartialDownload.Found]] {
        var candidates: [(root: String, relativePath: String)] = []
        var k = 0
        for (r, count) in resources {
            let range = k..<(k + count)
            k += count
            guard checks[range].contains(where: wants), FileStatus.isDirectory(atPath: r.folderPath) else { continue }
            for j in range where wants(checks[j]) { candidates.append((expectations[j].root, expectations[j].relativePath)) }
        }
        return candidates.isEmpty ? [:] : find(in: candidates, listings: &listings)
    }

    /// The names that have a partial file, by folder path: only those names are looked at more
    /// closely, and a folder of a million files is read once however many batches ask.
    struct Listings {
        var partNames: [String: Set<String>] = [:]

        /// The names with a partial file in the folder at `path` (empty when it cannot be read).
        mutating func names(inFolder path: String) -> Set<String> {
            if let known = partNames[path] { return known }
            var names = Set<String>()
            if let dir = opendir(path) {
                while let entry = readdir(dir) {
                    let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    if let name = PartialDownload.fileName(ofPart: entryName) { names.insert(name) }
                }
                closedir(dir)
            }
            partNames[path] = names
            return names
        }
    }

    /// Resumable partials by the slice's path relative to its output root, keyed by root.
    static func find(in candidates: [(root: String, relativePath: String)], listings: inout Listings) -> [String: [String: PartialDownload.Found]] {
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
            let wanted = listings.names(inFolder: path).intersection(names)
            guard !wanted.isEmpty else { continue }
            let folderFD = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard folderFD >= 0 else { continue }
            defer { close(folderFD) }
            for name in wanted {
                guard let partial = PartialDownload.find(in: folderFD, for: name) else { continue }
                let relative = folder.isEmpty ? name : folder + "/" + name
                found[root, default: [:]][relative] = partial
            }
        }
        return found
    }
}
