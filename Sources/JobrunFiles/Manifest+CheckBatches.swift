public import JobrunManifest

extension Manifest {
    /// Slices checked at once by a plan or a verification: enough for every core to have work in
    /// every batch, and what checking holds per slice (expectations, results, observations) is
    /// bounded by it, not by the manifests.
    public static let checkBatchSize = 16384

    /// The slices of the resources in `order`, `size` at a time (at least 1), in that order: each
    /// batch is a list of segments, a resource (by index) and a range of its slices. A resource
    /// whose slices are all in one batch is one segment; a resource without slices is an empty one.
    public func forEachCheckBatch(in order: [Int], size: Int, _ body: ([(resource: Int, slices: Range<Int>)]) -> Void) {
        let size = max(1, size)
        var segments: [(resource: Int, slices: Range<Int>)] = []
        var batched = 0
        for index in order {
            let count = resources[index].slices.count
            var start = 0
            repeat {
                let end = min(count, start + size - batched)
                segments.append((index, start..<end))
                batched += end - start
                start = end
                if batched == size {
                    body(segments)
                    segments = []
                    batched = 0
                }
            } while start < count
        }
        if !segments.isEmpty { body(segments) }
    }
}
