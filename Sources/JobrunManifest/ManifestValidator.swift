import JobrunCore
import JobrunSystem

/// Rules that span resources and files: unique ids, dependencies that exist and form no cycle,
/// and destinations that do not collide (same file twice, or a file where another needs a folder).
enum ManifestValidator {
    static func validate(_ resources: [Resource], currentDirectory: String, into diagnostics: inout DiagnosticCollector) {
        var firstByID: [String: Int] = [:]
        for (index, r) in resources.enumerated() where !r.id.isEmpty {
            if let first = firstByID[r.id] {
                diagnostics.error(
                    "duplicate resource id '\(r.id)'", at: r.location,
                    notes: [.note("'\(r.id)' first declared here", at: resources[first].location)])
            } else {
                firstByID[r.id] = index
            }
        }
        checkDependencies(resources, firstByID: firstByID, into: &diagnostics)
        checkDestinations(resources, currentDirectory: currentDirectory, into: &diagnostics)
        checkPublication(resources, currentDirectory: currentDirectory, into: &diagnostics)
    }

    // MARK: Atomic publication

    /// A resource published atomically switches its whole folder: the folder must be its own, a
    /// folder below the output root that holds no other resource's files and is inside none.
    static func checkPublication(_ resources: [Resource], currentDirectory: String, into diagnostics: inout DiagnosticCollector) {
        let atomic = resources.filter { !$0.id.isEmpty && $0.settings.publish.isAtomic }
        guard !atomic.isEmpty else { return }
        func folder(_ r: Resource) -> String { PathRules.join(currentDirectory, r.outputRoot) + (r.dest.isEmpty ? "" : "/" + r.dest) }
        for r in atomic {
            guard !r.dest.isEmpty else {
                diagnostics.error(
                    "resource '\(r.id)' has 'publish: atomic' but no 'dest': the switch replaces a folder of its own, and the output root itself holds the mirror state",
                    at: r.location)
                continue
            }
            let mine = folder(r)
            for other in resources where other.id != r.id && !other.id.isEmpty {
                let theirs = folder(other)
                let relation: String
                if theirs == mine {
                    relation = "writes into the same folder"
                } else if theirs.hasPrefix(mine + "/") {
                    relation = "writes into a folder inside it"
                } else if mine.hasPrefix(theirs + "/"), !other.slices.isEmpty {
                    // A resource around it whose files are all outside it does not share it.
                    guard other.slices.contains(where: { (theirs + "/" + $0.path).hasPrefix(mine + "/") }) else { continue }
                    relation = "has slices inside it"
                } else {
                    continue
                }
                diagnostics.error(
                    "resource '\(r.id)' has 'publish: atomic', which switches '\(display(mine, currentDirectory))' whole, but resource '\(other.id)' \(relation)",
                    at: r.location, notes: [.note("'\(other.id)' is declared here", at: other.location)])
            }
        }
    }

    // MARK: Dependencies

    static func checkDependencies(_ resources: [Resource], firstByID: [String: Int], into diagnostics: inout DiagnosticCollector) {
        // Edges by index; unknown ids and self-loops are reported and left out of the cycle search.
        var edges = [[(target: Int, location: SourceLocation)]](repeating: [], count: resources.count)
        for (index, r) in resources.enumerated() {
            for dep in r.dependsOn {
                guard let target = firstByID[dep.id] else {
                    diagnostics.error(
                        "resource '\(r.id)' depends on unknown resource '\(dep.id)'\(Suggestions.didYouMean(dep.id, in: firstByID.keys.filter { $0 != r.id }.sorted()))",
                        at: dep.location)
                    continue
                }
                if target == index || dep.id == r.id {
                    diagnostics.error("resource '\(r.id)' depends on itself", at: dep.location)
                    continue
                }
                edges[index].append((target, dep.location))
            }
        }
        for var cycle in cycles(edges: edges) {
            // Start at the smallest id, so the message is the same whatever order the files came in.
            if let first = cycle.indices.min(by: { resources[cycle[$0].from].id < resources[cycle[$1].from].id }) {
                cycle = Array(cycle[first...] + cycle[..<first])
            }
            let names = cycle.map { resources[$0.from].id } + [resources[cycle[0].from].id]
            diagnostics.error("dependency cycle: \(names.joined(separator: " -> "))", at: cycle[0].location)
        }
    }

    struct CycleEdge {
        var from: Int
        var location: SourceLocation
    }

    /// One cycle per back edge found by an iterative depth-first search (no recursion, so a chain of
    /// 10,000 resources cannot overflow the stack). Each cycle is rotated to start at its smallest
    /// index so the report does not depend on where the search began.
    static func cycles(edges: [[(target: Int, location: SourceLocation)]]) -> [[CycleEdge]] {
        enum Color: UInt8 { case white, gray, black }
        var color = [Color](repeating: .white, count: edges.count)
        var found: [[CycleEdge]] = []
        var seen = Set<[Int]>()
        for start in edges.indices where color[start] == .white {
            // Stack of (node, next edge index to explore).
            var stack: [(node: Int, next: Int)] = [(start, 0)]
            color[start] = .gray
            while let top = stack.last {
                let node = top.node
                if top.next < edges[node].count {
                    stack[stack.count - 1].next += 1
                    let edge = edges[node][top.next]
                    switch color[edge.target] {
                    case .white:
                        color[edge.target] = .gray
                        stack.append((edge.target, 0))
                    case .gray:
                        // Back edge: the cycle is the stack from edge.target up to node, then back.
                        guard let from = stack.firstIndex(where: { $0.node == edge.target }) else { continue }
                        var cycle: [CycleEdge] = []
                        for k in from..<stack.count {
                            let n = stack[k].node
                            let loc = k + 1 < stack.count ? edges[n][stack[k].next - 1].location : edge.location
                            cycle.append(CycleEdge(from: n, location: loc))
                        }
                        if let minIndex = cycle.indices.min(by: { cycle[$0].from < cycle[$1].from }) {
                            cycle = Array(cycle[minIndex...] + cycle[..<minIndex])
                        }
                        if seen.insert(cycle.map(\.from)).inserted { found.append(cycle) }
                    case .black:
                        break
                    }
                } else {
                    color[node] = .black
                    stack.removeLast()
                }
            }
        }
        return found
    }

    // MARK: Destinations

    /// Every slice's file must be distinct, and no file may sit where another slice needs a folder.
    static func checkDestinations(_ resources: [Resource], currentDirectory: String, into diagnostics: inout DiagnosticCollector) {
        // Values are (resource, slice) indices packed in an Int: a location per entry would cost
        // a retain and release per slice on a million-slice manifest.
        func base(_ r: Resource) -> String { PathRules.join(currentDirectory, r.outputRoot) + "/" + (r.dest.isEmpty ? "" : r.dest + "/") }
        var files = PathTable(capacity: resources.reduce(0) { $0 + $1.slices.count }) { packed in
            base(resources[packed >> 32]) + resources[packed >> 32].slices[packed & 0xFFFF_FFFF].path
        }
        var directories: [String: Int] = [:]
        func location(_ packed: Int) -> SourceLocation { resources[packed >> 32].slices[packed & 0xFFFF_FFFF].location }
        var collisions = 0
        // Every output root's state folder, absolute: no slice writes into one, whichever root it
        // writes to (a root may lie inside another).
        let stateFolders = Set(resources.filter { !$0.id.isEmpty }.map { PathRules.join(currentDirectory, $0.outputRoot) + "/" + MirrorStateFolder.name })
        // A resource without a valid id (already reported) has no known destination: checking it
        // would only add collisions that are not real.
        for (ri, r) in resources.enumerated() where !r.id.isEmpty {
            // Keys are absolute so `./mirror` and `../x/mirror` naming one folder still collide.
            let root = PathRules.join(currentDirectory, r.outputRoot)
            let base = base(r)
            let shown = r.outputRoot == "." ? "" : r.outputRoot + "/"
            var lastFolder: Substring.UTF8View?
            if let folder = stateFolders.first(where: { base.hasPrefix($0 + "/") }) {
                diagnostics.error(
                    "the destination '\(r.dest)' is inside '\(display(folder, currentDirectory))', the folder jobrun keeps for the mirror state",
                    at: r.location)
                continue
            }
            // State folders below this resource's folder, relative to it: usually none, or its own
            // root's `.jobrun`.
            let below = stateFolders.filter { ($0 + "/").hasPrefix(base) }.map { folder in
                (folder: folder, relative: String(folder.dropFirst(base.count)), inside: String(folder.dropFirst(base.count)) + "/")
            }
            for (si, s) in r.slices.enumerated() {
                let packed = ri << 32 | si
                if !below.isEmpty, let folder = below.first(where: { s.path == $0.relative || s.path.hasPrefix($0.inside) })?.folder {
                    diagnostics.error(
                        "slice path '\(s.path)' is inside '\(display(folder, currentDirectory))', the folder jobrun keeps for the mirror state",
                        at: s.location)
                    continue
                }
                let full = base + s.path
                if let first = files.insert(full, packed) {
                    collisions += 1
                    if collisions <= 100 {
                        diagnostics.error(
                            "two slices write the same file '\(shown)\(r.relativePath(of: s))'", at: s.location,
                            notes: [.note("the other slice is here", at: location(first))])
                    }
                    continue
                }
                // Folders this file needs; consecutive slices usually share them, so skip repeats
                // without building a string.
                let folder = SlashPath.split(s.path).folder.utf8
                if let last = lastFolder, last.elementsEqual(folder) { continue }
                lastFolder = folder
                var dir = Substring(full).utf8
                while let up = dir.lastIndex(of: UInt8(ascii: "/")), up > dir.startIndex {
                    dir = dir[..<up]
                    let key = String(Substring(dir))
                    if directories[key] != nil { break }
                    directories[key] = packed
                    if key.utf8.count <= root.utf8.count { break }
                }
            }
        }
        if collisions > 100 {
            diagnostics.error("\(collisions - 100) more slices write files that other slices write", at: nil)
        }
        for (dir, needer) in directories.sorted(by: { $0.key < $1.key }) {
            if let file = files.number(of: dir) {
                diagnostics.error(
                    "slice file '\(display(dir, currentDirectory))' is also a folder that another slice writes into", at: location(file),
                    notes: [.note("this slice needs '\(display(dir, currentDirectory))' to be a folder", at: location(needer))])
            }
        }
    }

    private static func display(_ absolute: String, _ currentDirectory: String) -> String {
        let prefix = currentDirectory.hasSuffix("/") ? currentDirectory : currentDirectory + "/"
        return absolute.hasPrefix(prefix) ? String(absolute.dropFirst(prefix.count)) : absolute
    }
}
