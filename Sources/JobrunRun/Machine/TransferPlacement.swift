import JobrunCore
/// Where a transfer runs and with what receive buffer, by its slice's planned size.
enum TransferPlacement {
    /// Slices of at least `largeSliceSize` bytes get a `largeReceiveBuffer`-byte libcurl receive
    /// buffer (such a transfer gets an easy handle of its own; see `TransferRequest`).
    static let largeSliceSize = ByteCount(1 << 20)
    static let largeReceiveBuffer = 512 << 10

    /// The receive buffer for a transfer of `size` bytes; `nil` keeps libcurl's 16 KiB and the
    /// pool of reused easy handles.
    static func receiveBuffer(forSize size: ByteCount?) -> Int? {
        guard let size, size >= largeSliceSize else { return nil }
        return largeReceiveBuffer
    }

    /// Plain-HTTP slices of at least `spreadSliceSize` bytes take turns over the engines.
    static let spreadSliceSize = ByteCount(64 << 10)
    /// TLS slices of at least `spreadTLSSliceSize` bytes take turns over the engines.
    static let spreadTLSSliceSize = ByteCount(24 << 10)

    /// Whether a transfer takes its turn over all the engines (`true`) or stays on engine 0, the
    /// one the driver runs itself. Where the engine thread's work grows with the bytes —
    /// copying bodies of 64 KiB and more, decrypting TLS bodies — spreading puts that work on
    /// every core; for a smaller body, handing its completion over from another thread (and, over
    /// TLS, a second connection) costs more than it saves. The lines (64 KiB over plain HTTP,
    /// 24 KiB over TLS) are where spreading starts to pay on two cores; the measurements are in
    /// docs/performance.md, "Where transfers run, and why".
    ///
    /// An unsized slice goes by the mean of its resource's unsized bodies so far
    /// (``BodySizeEstimate``), and spreads before the first has arrived: a large body kept on
    /// one engine would be received and hashed on one core.
    ///
    /// An origin known to multiplex (HTTP/2) keeps its slices below `largeSliceSize` (and those
    /// of no size known yet) on one engine: each engine keeps its own connections, and its slots
    /// are connections, so turns would double them. Larger bodies still take turns where the
    /// origin has two slots or more (`slotsPerHost`), at the cost of a connection on the other
    /// engine: receiving and decrypting them is the work, and one core would do all of it. Where
    /// it has one, it keeps to one connection, as asked.
    static func takesTurns(size: ByteCount?, overTLS: Bool, multiplexed: Bool = false, slotsPerHost: Int = 2) -> Bool {
        if multiplexed { return slotsPerHost >= 2 && size.map { $0 >= largeSliceSize } ?? false }
        guard let size else { return true }
        return size >= (overTLS ? spreadTLSSliceSize : spreadSliceSize)
    }
}
