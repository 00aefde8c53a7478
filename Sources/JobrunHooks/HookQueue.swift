/// Which due hooks run now: those of one resource one at a time, in the order they became due
/// (a redelivery before the hook of this run); at most ``limit`` at once; the first due first.
/// Pure: jobs in, jobs to start out.
struct HookQueue<Job> {
    /// Hooks running at once, all resources together.
    let limit: Int
    private var waiting: [(key: String, job: Job)] = []
    private var runningKeys = Set<String>()
    /// Hooks running now (one per key).
    var running: Int { runningKeys.count }

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Nothing waits and nothing runs.
    var isIdle: Bool { waiting.isEmpty && running == 0 }

    /// `job` (of `key`: its resource, or `""` for the run's end) is due. Returns the jobs to
    /// start now.
    mutating func add(_ job: Job, key: String) -> [Job] {
        waiting.append((key, job))
        return startable()
    }

    /// A job of `key` has ended. Returns the jobs to start now.
    mutating func finished(key: String) -> [Job] {
        runningKeys.remove(key)
        return startable()
    }

    /// Takes every waiting job out (jobrun stops: they stay due for the next run).
    mutating func removeWaiting() -> [Job] {
        defer { waiting = [] }
        return waiting.map(\.job)
    }

    private mutating func startable() -> [Job] {
        var started: [Job] = []
        var k = 0
        while k < waiting.count, running < limit {
            let key = waiting[k].key
            // A key already running, or passed over in this scan, keeps its order.
            if runningKeys.contains(key) {
                k += 1
                continue
            }
            runningKeys.insert(key)
            started.append(waiting.remove(at: k).job)
        }
        return started
    }
}
