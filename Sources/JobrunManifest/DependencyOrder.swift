extension Manifest {
    /// Indices of ``resources`` in dependency order: every resource after the ones it depends on,
    /// ties broken by id, so the order does not depend on the order files were given in.
    public var dependencyOrder: [Int] { DependencyOrder.order(resources) }
}

/// Orders resources so every resource comes after the ones it depends on.
enum DependencyOrder {
    /// Kahn's algorithm with ties broken by id, so the order does not depend on the order files were
    /// given in. Iterative; linear in resources + edges (a 10,000-long chain is no problem).
    /// Resources caught in a cycle (which validation already refuses) are appended by id.
    static func order(_ resources: [Resource]) -> [Int] {
        var indexByID: [String: Int] = [:]
        for (i, r) in resources.enumerated() where indexByID[r.id] == nil { indexByID[r.id] = i }
        var dependents = [[Int]](repeating: [], count: resources.count)
        var pending = [Int](repeating: 0, count: resources.count)
        for (i, r) in resources.enumerated() {
            for dep in Set(r.dependsOn.map(\.id)) {
                guard let j = indexByID[dep], j != i else { continue }
                dependents[j].append(i)
                pending[i] += 1
            }
        }
        var heap = MinHeap<Key>()
        for i in resources.indices where pending[i] == 0 { heap.push(Key(id: resources[i].id, index: i)) }
        var order: [Int] = []
        order.reserveCapacity(resources.count)
        while let next = heap.pop() {
            order.append(next.index)
            for d in dependents[next.index] {
                pending[d] -= 1
                if pending[d] == 0 { heap.push(Key(id: resources[d].id, index: d)) }
            }
        }
        if order.count < resources.count {
            let placed = Set(order)
            order += resources.indices.filter { !placed.contains($0) }.sorted { resources[$0].id < resources[$1].id }
        }
        return order
    }

    struct Key: Comparable {
        var id: String
        var index: Int
        static func < (a: Key, b: Key) -> Bool { (a.id, a.index) < (b.id, b.index) }
    }
}

/// A binary min-heap.
struct MinHeap<Element: Comparable> {
    private var items: [Element] = []

    mutating func push(_ e: Element) {
        items.append(e)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            if items[i] < items[parent] {
                items.swapAt(i, parent)
                i = parent
            } else {
                break
            }
        }
    }

    mutating func pop() -> Element? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count, items[l] < items[m] { m = l }
                if r < items.count, items[r] < items[m] { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return first
    }
}
