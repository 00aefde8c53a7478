public import JobrunCore
public import JobrunManifest
public import JobrunState
public import JobrunSystem

/// A file a prune would remove: in a pruned resource's folder, named by no slice of the
/// manifests.
public struct PruneFile: Sendable, Hashable {
    public var resource: String
    /// The output root, as the manifests name it, and the path below it.
    public var root: String
    public var path: String
    /// No record says jobrun fetched it (another program's file, or one jobrun only found there):
    /// removed only when asked for explicitly (`--prune-foreign`).
    public var isForeign: Bool
    /// Where the file is, below the root: `path`, or its place in the stage of a resource
    /// published atomically (``StageMap``).
    public var location: String

    public init(resource: String, root: String, path: String, isForeign: Bool, location: String? = nil) {
        self.resource = resource
        self.root = root
        self.path = path
        self.isForeign = isForeign
        self.location = location ?? path
    }

    /// As the user would type it: `root/path`.
    public var file: String { shown(path) }

    /// `relative` (a path below the root, as the trash path) as the user would type it.
    public func shown(_ relative: String) -> String { root == "." ? relative : root + "/" + relative }
}

/// What a prune of a run would remove (``PrunePlan/make(_:options:recorded:identity:foreign:stages:currentDirectory:)``),
/// and whether its limit allows it.
public struct PrunePlan: Sendable {
    /// What `--prune`, `--prune-foreign` and `--max-delete` asked.
    public struct Options: Sendable, Hashable {
        /// Every selected resource (`--prune`); otherwise those with `prune: true`.
        public var all = false
        /// Files no record says jobrun fetched too (`--prune-foreign`).
        public var foreign = false
        public var limit = DeleteLimit.standard
        public init(all: Bool = false, foreign: Bool = false, limit: DeleteLimit = .standard) {
            self.all = all
            self.foreign = foreign
            self.limit = limit
        }
    }

    /// Foreign files first (they are the ones to read twice), then by root and path.
    public var files: [PruneFile]
    /// The ids of the resources pruned, in the manifest's order.
    public var resources: [String]
    /// The files of those resources: their slices and the files to remove, which a percentage
    /// limit counts from.
    public var total: Int
    public var limit: DeleteLimit

    /// Why nothing may be removed (more files than the limit allows), or `nil`.
    public var refusal: String? {
        let allowed = limit.allowance(of: total)
        guard files.count > allowed else { return nil }
        let share: String
        switch limit {
        case .count: share = ""
        case .percent: share = " of the \(total) files of the pruned resources"
        }
        return "\(files.count) files to prune, more than --max-delete \(limit) allows (\(allowed)\(share)); nothing was pruned"
    }

    /// The plan for the resources of `manifest` that `options` prunes. Pure but for the three
    /// lookups it is given:
    /// - `recorded`: what a root's mirror state records (`nil` when it has no store: none of its
    ///   files is known to be jobrun's);
    /// - `identity`: the identity of what is at a path below a root, a link not followed (`nil`
    ///   when nothing is there, or a folder);
    /// - `foreign`: the paths below a root's folders that the given set does not name (asked
    ///   only with ``Options/foreign``).
    ///
    /// | the path                                                                 | pruned         |
    /// |--------------------------------------------------------------------------|----------------|
    /// | named by a slice of any resource of the manifests (any root's, nested or not) | never     |
    /// | in a `.jobrun` folder, or below another output root of the manifests      | never          |
    /// | recorded for another resource than one pruned                            | never          |
    /// | recorded for a pruned resource, fetched by jobrun, still that file (device, inode, size, modification time) | yes |
    /// | recorded for it but only found there or changed since, or not recorded    | `--prune-foreign` only |
    /// | not recorded, and in the folder of a resource not pruned (the innermost)  | never          |
    /// | of a resource split over shards, another shard's                          | never          |
    public static func make(
        _ manifest: Manifest, options: Options, recorded: (String) -> [StateStore.RecordedFile]?, identity: (String, String) -> FileIdentity?,
        foreign: (String, [String], Set<String>) -> [String], stages: StageMap = StageMap(),
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) -> PrunePlan {
        // A staged resource's files are planned by their published paths, and looked at in its stage.
        let recorded = stages.isEmpty ? recorded : { root in recorded(root).map { stages.published($0, root: root) } }
        let identity = stages.isEmpty ? identity : { root, path in identity(root, stages.location(of: path, root: root)) }
        let foreign =
            stages.isEmpty
            ? foreign
            : { root, folders, names in
                folders.flatMap { folder -> [String] in
                    guard let stage = stages.stage(of: folder, root: root) else { return foreign(root, [folder], names) }
                    let inStage = Set(names.filter { StageMap.rest(of: $0, below: folder) != nil }.map { stages.location(of: $0, root: root) })
                    return foreign(root, [stage], inStage).compactMap { stages.publishedPath(of: $0, root: root) }
                }
            }
        let pruned = manifest.resources.filter { options.all || $0.settings.prune }
        var plan = PrunePlan(files: [], resources: pruned.map(\.id), total: 0, limit: options.limit)
        guard !pruned.isEmpty else { return plan }
        let declared = manifest.declaredResources
        let prunedIDs = Set(pruned.map(\.id))
        let owner = Ownership(manifest)
        var files: [PruneFile] = []
        for root in Set(pruned.map(\.outputRoot)).sorted() {
            let here = pruned.filter { $0.outputRoot == root }
            let names = Self.named(below: root, by: declared, from: currentDirectory)
            let absoluteRoot = PathRules.absolute(root, from: currentDirectory)
            let nestedRoots = Set(declared.map { PathRules.absolute($0.outputRoot, from: currentDirectory) }).compactMap {
                Self.relative($0, below: absoluteRoot)
            }.filter { !$0.isEmpty }
            func mayGo(_ path: String) -> Bool {
                !names.contains(path) && !path.split(separator: "/").contains(where: { $0 == MirrorStateFolder.name })
                    && !nestedRoots.contains { path.hasPrefix($0 + "/") }
            }
            let records = recorded(root) ?? []
            var recordedPaths = Set<String>()
            for record in records {
                recordedPaths.insert(record.path)
                guard mayGo(record.path), let r = here.first(where: { $0.id == record.resource }), r.contains(record.path), owner.owns(record.path, of: r),
                    let now = identity(root, record.path)
                else { continue }
                let isJobruns = record.wasFetched && now.isSameWrite(as: record.file)
                guard isJobruns || options.foreign else { continue }
                files.append(
                    PruneFile(resource: r.id, root: root, path: record.path, isForeign: !isJobruns, location: stages.location(of: record.path, root: root)))
            }
            guard options.foreign else { continue }
            var seen = Set<String>()
            let inRoot = declared.filter { $0.outputRoot == root }
            // One walk of every pruned folder (a folder inside another is walked once, as part of it).
            for path in foreign(root, here.map(\.dest), names) where !recordedPaths.contains(path) && mayGo(path) && seen.insert(path).inserted {
                // Folders nest: a file belongs to the innermost resource folder it is in, and
                // goes only when that resource is pruned here.
                // Two resources sharing the innermost folder: the file goes only if both are pruned.
                let containing = inRoot.filter { $0.contains(path) }
                let depth = containing.map(\.dest.utf8.count).max() ?? -1
                let innermost = containing.filter { $0.dest.utf8.count == depth }
                guard let first = innermost.first, innermost.allSatisfy({ prunedIDs.contains($0.id) }), owner.owns(path, of: first),
                    identity(root, path) != nil
                else { continue }
                let innermostID = innermost.first { candidate in here.contains { $0.id == candidate.id } }?.id ?? first.id
                files.append(PruneFile(resource: innermostID, root: root, path: path, isForeign: true, location: stages.location(of: path, root: root)))
            }
        }
        plan.files = files.sorted { ($0.isForeign ? 0 : 1, $0.root, $0.path) < ($1.isForeign ? 0 : 1, $1.root, $1.path) }
        plan.total = pruned.reduce(0) { $0 + $1.slices.count } + files.count
        return plan
    }

    /// Every path below `root` a slice of `resources` names, whichever root the slice is of: the
    /// same, one nested in it (`mirror/sub` in `mirror`), or one around it; roots compared as
    /// absolute paths (from `currentDirectory`).
    static func named(below root: String, by resources: [Resource], from currentDirectory: String) -> Set<String> {
        let base = PathRules.absolute(root, from: currentDirectory)
        var names = Set<String>()
        for r in resources {
            let other = PathRules.absolute(r.outputRoot, from: currentDirectory)
            if let prefix = relative(other, below: base) {
                for s in r.slices { names.insert(prefix.isEmpty ? r.relativePath(of: s) : prefix + "/" + r.relativePath(of: s)) }
            } else if relative(base, below: other) != nil {
                // A root around this one: its slices in this root's folders, by their whole path.
                for s in r.slices {
                    if let inside = relative(other + "/" + r.relativePath(of: s), below: base) { names.insert(inside) }
                }
            }
        }
        return names
    }

    /// `path` relative to `root` when it is `root` (`""`) or below it; `nil` otherwise. Both are
    /// output roots as the manifests name them (made from the same current folder).
    static func relative(_ path: String, below root: String) -> String? {
        if path == root { return "" }
        if root == "." { return path.hasPrefix("/") ? nil : path }
        let base = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(base) ? String(path.dropFirst(base.count)) : nil
    }

    /// Which shard prunes what: a resource placed whole on this shard, all of its files; one split
    /// over the shards, the paths the layout puts here.
    struct Ownership {
        let shard: ShardSelection?
        let declaredCounts: [String: Int]

        init(_ manifest: Manifest) {
            shard = manifest.shard
            var counts: [String: Int] = [:]
            for r in manifest.shard?.declared ?? [] { counts[r.id] = r.slices.count }
            declaredCounts = counts
        }

        func owns(_ path: String, of r: Resource) -> Bool {
            guard let shard, let declared = declaredCounts[r.id], declared != r.slices.count else { return true }
            let slicePath = r.dest.isEmpty ? path : String(path.dropFirst(r.dest.count + 1))
            return ShardLayout.shard(ofSlice: slicePath, resource: r.id, count: shard.spec.count) == shard.spec.index
        }
    }
}

extension Resource {
    /// Whether `path` (relative to the output root) is in the resource's folder.
    func contains(_ path: String) -> Bool {
        dest.isEmpty
            || (path.hasPrefix(dest) && path.utf8.count > dest.utf8.count
                && path.utf8[path.utf8.index(path.utf8.startIndex, offsetBy: dest.utf8.count)] == UInt8(ascii: "/"))
    }
}
