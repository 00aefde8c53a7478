import JobrunCore
/// What the bodies of a resource's unsized slices have weighed so far, to guess the next one's:
/// where its transfer runs and its receive buffer are chosen by size
/// (``TransferPlacement/takesTurns(size:overTLS:)``), and a resource listed by `slices_from` declares
/// none. Unknown until one body has arrived: an unsized slice is then taken to be large (it takes
/// turns over the engines, with a large receive buffer), so a list of large files uses every core
/// from its first transfers; small ones bring the mean down as soon as they arrive.
struct BodySizeEstimate {
    private var count: Int64 = 0
    private var bytes: ByteCount = 0

    mutating func observe(_ size: ByteCount) {
        count += 1
        bytes = bytes.saturatingAdding(max(0, size))
    }

    /// The mean body so far, `nil` before the first.
    var mean: ByteCount? { count == 0 ? nil : bytes.divided(by: count) }
}
