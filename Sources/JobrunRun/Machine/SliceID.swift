/// One slice of the run (a job), by its place in plan order: the key every part of the run's
/// machine keeps its records by, so that it is never mistaken for a resource's or a slice's
/// index within its resource. Ranges of them are the jobs of a resource.
struct SliceID: Hashable, Comparable, Strideable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The job's place in plan order (its index in the slice book).
    let index: Int

    init(_ index: Int) { self.index = index }
    init(integerLiteral value: Int) { index = value }

    static func < (a: SliceID, b: SliceID) -> Bool { a.index < b.index }
    func distance(to other: SliceID) -> Int { other.index - index }
    func advanced(by n: Int) -> SliceID { SliceID(index + n) }

    var description: String { String(index) }
}

extension Array {
    /// The element of job `j`, in an array kept by job (the slice book's jobs, their sizes).
    subscript(_ j: SliceID) -> Element {
        get { self[j.index] }
        _modify { yield &self[j.index] }
    }
}
