import JobrunCore
public import JobrunManifest
public import JobrunPlan
public import JobrunOutcome
public import JobrunState
import JobrunFiles
import JobrunSystem

/// The atomic publication of a run's resources (`publish: atomic`). Before the plan, it finishes
/// what a killed run left (a switch made but not recorded, a stage half filled), removes replaced
/// versions whose grace is over, and takes up the stages of earlier runs; the plan then sees each
/// staged resource in its stage (``staging(_:)``), so the run fetches into the stage and a stopped
/// run's work is continued. After the run, each staged resource that is complete is switched in
/// (``publish(_:runID:now:)``, Publisher+Switch.swift): one exchange of folders, then its records follow.
///
/// Every step is ordered so that a kill at any point leaves the published folder as one version
/// whole, and the next run knows where it stands from the store's `publications` row: the stage
/// folder's inode, found at the published folder's place once the exchange happened.
public struct Publisher: Sendable {
    /// A resource whose run goes to its stage.
    public struct Staged: Sendable, Hashable {
        public var id: String
        /// The output root as the manifests name it.
        public var root: String
        /// The published folder and the stage, below the root.
        public var dest: String
        public var stage: String
        public var grace: Duration
        /// Made by this run: until the run changes something in it, it is the published version.
        public var isNew = false
    }

    /// Why publication cannot go ahead at all: the run must not fetch anything then.
    public struct Failure: Error, Sendable {
        public var message: String
    }

    let states: MirrorStates
    /// By resource id.
    public private(set) var staged: [String: Staged] = [:]
    /// Things done or found that the log should say (a stage discarded, say).
    public private(set) var notes: [String] = []

    init(states: MirrorStates) { self.states = states }

    /// Settles what earlier runs left for the resources of `manifest`, and takes up the stages of
    /// those still published atomically.
    public static func prepare(_ manifest: Manifest, states: MirrorStates, runID: String, now: Int64) throws(Failure) -> Publisher {
        var publisher = Publisher(states: states)
        var remembered: [String: [String: StateStore.Stage]] = [:]
        let atomicRoots = Set(manifest.resources.filter(\.settings.publish.isAtomic).map(\.outputRoot))
        for r in manifest.resources {
            if remembered[r.outputRoot] == nil {
                // A root without a store has no stage to settle: none is made for it here.
                guard atomicRoots.contains(r.outputRoot) || FileStatus.kind(atPath: StateStore.path(forRoot: r.outputRoot)) != nil else { continue }
                // An atomic publication keeps its journal in the store: it needs one it can write.
                let stages = states.mayRecord(root: r.outputRoot) ? states.stages(root: r.outputRoot) : nil
                if stages == nil, atomicRoots.contains(r.outputRoot) {
                    let id = manifest.resources.first { $0.outputRoot == r.outputRoot && $0.settings.publish.isAtomic }?.id ?? r.id
                    throw Failure(
                        message:
                            "resource '\(id)' is published atomically, which needs the mirror state of '\(r.outputRoot)' (its journal), and it is not in use; nothing was fetched"
                    )
                }
                remembered[r.outputRoot] = stages ?? [:]
            }
            // Replaced versions whose grace is over go first: a stage taken up below sees the change
            // times their removal gave the files it shares.
            publisher.expire(r, now: now)
            if let stage = remembered[r.outputRoot]?[r.id] {
                try publisher.settle(stage, of: r, retiredAs: Trash.folderName(atMilliseconds: now, runID: runID))
            }
        }
        return publisher
    }

    /// What a remembered stage of `r` comes to: a switch finished, the stage continued, or discarded.
    private mutating func settle(_ remembered: StateStore.Stage, of r: Resource, retiredAs name: String) throws(Failure) {
        let root = r.outputRoot
        let stage = StageFolder.stage(of: r.id)
        if StageFolder.inode(ofFolder: remembered.dest, root: root) == remembered.inode {
            // The exchange happened and a kill took the rest: the stage's folder holds the replaced version.
            if StageFolder.inode(ofFolder: stage, root: root) != nil, case .failure(let error) = StageFolder.retire(root: root, id: r.id, as: name) {
                throw Failure(message: "the replaced version of '\(r.id)' cannot be moved aside: \(error.description); nothing was fetched")
            }
            guard states.finishPublication(of: r.id, dest: remembered.dest, stage: stage, root: root) else {
                throw Failure(message: "the publication of '\(r.id)' cannot be recorded in the mirror state of '\(root)'; nothing was fetched")
            }
            notes.append("resource '\(r.id)': the switch an earlier run made is recorded now")
            return
        }
        if Self.continues(remembered, of: r) {
            if !remembered.isFilled { try fill(r, inode: remembered.inode) }
            staged[r.id] = Staged(id: r.id, root: root, dest: r.dest, stage: stage, grace: r.settings.publish.grace)
            return
        }
        // Made for another folder, no longer atomic, or not the folder remembered: never published.
        try discard(r)
        notes.append("resource '\(r.id)': its unpublished stage was removed")
    }

    /// `manifest` as a run would see it now, changing nothing (`plan`): the resources published
    /// atomically whose stage an earlier run left, filled, in their stages; and where their files are.
    public static func view(_ manifest: Manifest, states: MirrorStates) -> (manifest: Manifest, stages: StageMap) {
        var publisher = Publisher(states: states)
        var remembered: [String: [String: StateStore.Stage]] = [:]
        for r in manifest.resources where r.settings.publish.isAtomic {
            if remembered[r.outputRoot] == nil { remembered[r.outputRoot] = states.stages(root: r.outputRoot) ?? [:] }
            let stage = StageFolder.stage(of: r.id)
            guard let s = remembered[r.outputRoot]?[r.id], s.isFilled, Self.continues(s, of: r) else { continue }
            publisher.staged[r.id] = Staged(id: r.id, root: r.outputRoot, dest: r.dest, stage: stage, grace: r.settings.publish.grace)
        }
        return (publisher.staging(manifest), publisher.stageMap)
    }

    /// Whether the stage the store remembers is `r`'s to continue: `r` is still published
    /// atomically to the folder it was made for, and the stage folder is the one remembered.
    static func continues(_ remembered: StateStore.Stage, of r: Resource) -> Bool {
        r.settings.publish.isAtomic && remembered.dest == r.dest
            && StageFolder.inode(ofFolder: StageFolder.stage(of: r.id), root: r.outputRoot) == remembered.inode
    }

    /// The resources of `manifest` that publish atomically and have no stage yet.
    public func unstaged(in manifest: Manifest) -> [Resource] {
        manifest.resources.filter { $0.settings.publish.isAtomic && staged[$0.id] == nil }
    }

    /// Makes a stage for each of `resources`: every file of its published folder linked into it,
    /// their records copied with it.
    public mutating func begin(_ resources: [Resource]) throws(Failure) {
        for r in resources where staged[r.id] == nil {
            let root = r.outputRoot
            let stage = StageFolder.stage(of: r.id)
            // A stage no row remembers is one a kill interrupted before it was recorded.
            try discard(r)
            if case .failure(let error) = StageFolder.probeExchange(root: root, id: r.id) {
                throw Failure(message: "resource '\(r.id)' cannot be published atomically here: \(error.description); nothing was fetched")
            }
            let inode: UInt64
            switch StageFolder.create(root: root, stage: stage) {
            case .success(let made): inode = made
            case .failure(let error): throw Failure(message: "the stage of '\(r.id)' cannot be made: \(error.description); nothing was fetched")
            }
            guard states.remember(StateStore.Stage(resource: r.id, dest: r.dest, inode: inode, isFilled: false), root: root) else {
                throw Failure(message: "the stage of '\(r.id)' cannot be recorded in the mirror state of '\(root)'; nothing was fetched")
            }
            try fill(r, inode: inode)
            staged[r.id] = Staged(id: r.id, root: root, dest: r.dest, stage: stage, grace: r.settings.publish.grace, isNew: true)
        }
    }

    private func fill(_ r: Resource, inode: UInt64) throws(Failure) {
        let stage = StageFolder.stage(of: r.id)
        switch StageFolder.fill(root: r.outputRoot, published: r.dest, stage: stage) {
        case .success(let filled):
            guard filled.inode == inode else {
                throw Failure(message: "the stage of '\(r.id)' is not the folder the mirror state remembers; nothing was fetched")
            }
            let links = filled.linked.map { StateStore.StageLink(path: $0.path, before: $0.before, after: $0.after) }
            guard states.adoptLinks(links, of: r.id, dest: r.dest, stage: stage, root: r.outputRoot) else {
                throw Failure(message: "the stage of '\(r.id)' cannot be recorded in the mirror state of '\(r.outputRoot)'; nothing was fetched")
            }
        case .failure(let error):
            throw Failure(message: "the stage of '\(r.id)' cannot be filled: \(error.description); nothing was fetched")
        }
    }

    /// Removes `r`'s unpublished stage: forgotten first, so that a kill part way leaves a folder no
    /// row explains (removed by the next run that needs a stage), never a half-emptied stage taken up.
    private func discard(_ r: Resource) throws(Failure) {
        let stage = StageFolder.stage(of: r.id)
        guard states.forgetStage(of: r.id, stage: stage, root: r.outputRoot) else {
            throw Failure(message: "the stage of '\(r.id)' cannot be forgotten in the mirror state of '\(r.outputRoot)'; nothing was fetched")
        }
        let removal = StageFolder.discard(root: r.outputRoot, id: r.id)
        retime(removal.shared, dest: r.dest, stage: stage, root: r.outputRoot)
        guard removal.isComplete else {
            throw Failure(message: "the unpublished stage '\(Self.shown(r.outputRoot, stage))' cannot be removed; nothing was fetched")
        }
    }

    /// Removes `r`'s replaced versions whose grace is over (whether it is still published
    /// atomically or not: their links would keep old files on disk for good).
    mutating func expire(_ r: Resource, now: Int64) {
        let removal = StageFolder.expire(root: r.outputRoot, id: r.id, keptFor: r.settings.publish.grace.wholeMilliseconds, now: now)
        retime(removal.shared, dest: r.dest, stage: StageFolder.stage(of: r.id), root: r.outputRoot)
    }

    /// After links to files of the published folder `dest` were removed (`shared`, their inodes),
    /// the records of those files below `dest` and the stage take the change time the removal
    /// gave them, so that they are not read again.
    func retime(_ shared: Set<UInt64>, dest: String, stage: String, root: String) {
        guard !shared.isEmpty else { return }
        for folder in [dest, stage] {
            var links: [StateStore.StageLink] = []
            for (path, before) in states.identities(under: folder, root: root) where shared.contains(before.inode) {
                var status = stat()
                guard lstat(Self.shown(root, folder + "/" + path), &status) == 0 else { continue }
                let now = FileIdentity(status)
                if now != before { links.append(StateStore.StageLink(path: path, before: before, after: now)) }
            }
            states.retime(links, dest: folder, root: root)
        }
    }

    /// Where the staged resources' files are, for a prune that plans by published paths.
    public var stageMap: StageMap {
        var map = StageMap()
        for s in staged.values { map.add(root: s.root, dest: s.dest, stage: s.stage) }
        return map
    }

    /// `manifest` as the run sees it: each staged resource's files in its stage.
    public func staging(_ manifest: Manifest) -> Manifest {
        guard !staged.isEmpty else { return manifest }
        var view = manifest
        for k in view.resources.indices {
            if let s = staged[view.resources[k].id] { view.resources[k].dest = s.stage }
        }
        return view
    }

}
