/// Ready jobs of one resource at one origin (or resources in turn), kept in sequence order;
/// taking the first is O(1).
struct ReadyQueue<Element> {
    private var items: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var first: Element? { isEmpty ? nil : items[head] }
    var last: Element? { isEmpty ? nil : items.last }
    var count: Int { items.count - head }

    /// Queues `j` last (for a FIFO with no order of its own to keep).
    mutating func append(_ j: Element) { items.append(j) }

    mutating func removeFirst() {
        head += 1
        // Drop the consumed prefix now and then, so the storage stays proportional to what waits.
        if head >= 1024 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
    }

    /// Takes the last waiting job, if any.
    mutating func removeLast() -> Element? {
        guard !isEmpty else { return nil }
        return items.removeLast()
    }

    /// Removes every waiting element equal to `e`.
    mutating func remove(_ e: Element) where Element: Equatable {
        items = Array(items[head...].filter { $0 != e })
        head = 0
    }

    /// Inserts `j` before the first waiting job with a larger sequence number.
    mutating func insert(_ j: Element, sequence seq: Int, sequenceOf: (Element) -> Int) {
        if let last = items.last, head < items.count, sequenceOf(last) > seq {
            let at = items[head...].firstIndex { sequenceOf($0) > seq } ?? items.count
            items.insert(j, at: at)
        } else {
            items.append(j)
        }
    }
}
