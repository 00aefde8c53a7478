/// Transfers under way on each engine (an engine never seen counts 0).
struct EngineTally: Equatable {
    private var counts: [Int] = []

    subscript(engine: Int) -> Int { engine < counts.count ? counts[engine] : 0 }

    /// A transfer started (`+1`) or ended (`-1`) on `engine`.
    mutating func add(_ change: Int, on engine: Int) {
        if counts.count <= engine { counts += Array(repeating: 0, count: engine + 1 - counts.count) }
        counts[engine] += change
    }
}
