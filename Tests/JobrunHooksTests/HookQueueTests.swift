import Testing
@testable import JobrunHooks

/// The queue's rules: one hook at a time per resource, in the order they became due; at most
/// `limit` at once; the first due first; a stop takes the waiting ones out.
@Suite struct HookQueueTests {
    @Test func oneAtATimePerResourceInOrder() {
        var queue = HookQueue<String>(limit: 4)
        #expect(queue.add("a1", key: "a") == ["a1"])
        #expect(queue.add("a2", key: "a") == [])
        #expect(queue.add("b1", key: "b") == ["b1"])
        #expect(queue.add("a3", key: "a") == [])
        #expect(queue.finished(key: "a") == ["a2"])
        #expect(queue.finished(key: "a") == ["a3"])
        #expect(queue.finished(key: "b") == [])
        #expect(!queue.isIdle)
        #expect(queue.finished(key: "a") == [])
        #expect(queue.isIdle)
    }

    @Test func atMostTheLimitAtOnceFirstDueFirst() {
        var queue = HookQueue<String>(limit: 2)
        #expect(queue.add("a", key: "a") == ["a"])
        #expect(queue.add("b", key: "b") == ["b"])
        #expect(queue.add("c", key: "c") == [])
        #expect(queue.add("d", key: "d") == [])
        #expect(queue.running == 2)
        #expect(queue.finished(key: "b") == ["c"])
        #expect(queue.finished(key: "a") == ["d"])
    }

    /// A resource whose hook runs does not hold up the others behind it.
    @Test func aBusyResourceIsPassedOver() {
        var queue = HookQueue<String>(limit: 2)
        _ = queue.add("a1", key: "a")
        #expect(queue.add("a2", key: "a") == [])
        #expect(queue.add("b1", key: "b") == ["b1"])
        #expect(queue.finished(key: "b") == [])
        #expect(queue.add("c1", key: "c") == ["c1"])
        #expect(queue.finished(key: "a") == ["a2"])
    }

    @Test func aStopTakesTheWaitingOnesOut() {
        var queue = HookQueue<String>(limit: 1)
        _ = queue.add("a", key: "a")
        _ = queue.add("b", key: "b")
        _ = queue.add("c", key: "c")
        #expect(queue.removeWaiting() == ["b", "c"])
        #expect(queue.finished(key: "a") == [])
        #expect(queue.isIdle)
    }

    /// Whatever the order of ends, every job starts once, never two of one key at once, never
    /// more than the limit.
    @Test(arguments: 0..<20) func everyJobRunsOnceWithinTheRules(seed: Int) {
        var random = Steps(seed: UInt64(seed))
        var queue = HookQueue<Int>(limit: 3)
        var keyOf: [Int: String] = [:]
        var running: [Int] = []
        var started: [Int] = []
        func begin(_ jobs: [Int]) {
            for job in jobs {
                #expect(!running.contains { keyOf[$0] == keyOf[job] }, "two of key \(keyOf[job] ?? "") at once")
                running.append(job)
                started.append(job)
            }
            #expect(running.count <= 3)
        }
        for job in 0..<40 {
            keyOf[job] = "k\(random.next() % 5)"
            begin(queue.add(job, key: keyOf[job] ?? ""))
            if random.next() % 2 == 0, !running.isEmpty {
                let done = running.remove(at: Int(random.next() % UInt64(running.count)))
                begin(queue.finished(key: keyOf[done] ?? ""))
            }
        }
        while !running.isEmpty {
            let done = running.removeFirst()
            begin(queue.finished(key: keyOf[done] ?? ""))
        }
        #expect(started.sorted() == Array(0..<40))
        #expect(queue.isIdle)
        // Per key, in the order they became due.
        for key in Set(keyOf.values) {
            let order = started.filter { keyOf[$0] == key }
            #expect(order == order.sorted())
        }
    }
}

/// A reproducible sequence per seed (Knuth's MMIX linear congruential generator, high bits).
struct Steps {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
}
