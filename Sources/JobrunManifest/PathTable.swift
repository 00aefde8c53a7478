import JobrunCore

/// A set of paths, each with a number, that keeps no path: a 64-bit hash of each (FNV-1a of its
/// UTF-8) and the number, and the exact path only for the rare one whose hash another path took.
/// A manifest of a million slices checks that no two write one file; keeping their absolute
/// paths for that took a hundred bytes a slice.
struct PathTable {
    private var byHash: [UInt64: Int] = [:]
    /// Paths whose hash an earlier, different path took.
    private var exact: [String: Int] = [:]
    /// The path a number was inserted with (only asked when two hashes agree).
    private let path: (Int) -> String
    private let hash: (String) -> UInt64

    /// `hash` is FNV-1a but in tests, which make paths collide.
    init(capacity: Int, hash: @escaping (String) -> UInt64 = PathTable.fnv1a, path: @escaping (Int) -> String) {
        byHash.reserveCapacity(capacity)
        self.hash = hash
        self.path = path
    }

    /// Adds `key` as `number`, unless it is there: then the number it has.
    mutating func insert(_ key: String, _ number: Int) -> Int? {
        let h = hash(key)
        guard let first = byHash[h] else {
            byHash[h] = number
            return nil
        }
        if path(first) == key { return first }
        if let other = exact[key] { return other }
        exact[key] = number
        return nil
    }

    /// The number `key` was added with.
    func number(of key: String) -> Int? {
        guard let first = byHash[hash(key)] else { return nil }
        return path(first) == key ? first : exact[key]
    }

    static func fnv1a(_ key: String) -> UInt64 {
        var hash = FNV1a()
        hash.add(key)
        return hash.value
    }
}
