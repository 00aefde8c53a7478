/// The end of what a hook wrote: its last `limit` bytes, however much it wrote.
struct HookOutputTail {
    let limit: Int
    private var bytes: [UInt8] = []
    /// Every byte written, kept or not.
    private(set) var total: Int64 = 0

    init(limit: Int) {
        self.limit = max(1, limit)
        bytes.reserveCapacity(2 * self.limit)
    }

    mutating func append(_ chunk: UnsafeRawBufferPointer) {
        total += Int64(chunk.count)
        if chunk.count >= limit {
            bytes = Array(chunk.suffix(limit))
            return
        }
        bytes.append(contentsOf: chunk)
        // Trimmed in steps of `limit`: each byte is moved at most once.
        if bytes.count >= 2 * limit { bytes.removeFirst(bytes.count - limit) }
    }

    /// The last `limit` bytes as text: a character cut at the start is dropped, invalid UTF-8
    /// replaced.
    var text: String {
        var kept = bytes.suffix(limit)[...]
        // UTF-8 continuation bytes (10xxxxxx) of a character that began before the tail.
        while let first = kept.first, first & 0xC0 == 0x80 { kept = kept.dropFirst() }
        return String(decoding: kept, as: UTF8.self)
    }
}
