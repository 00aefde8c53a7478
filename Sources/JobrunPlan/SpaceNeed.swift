import JobrunCore

/// What a plan would write to one file system, next to the room it has.
///
/// Output roots on the same file system (same `st_dev`) share one need: their bytes add up
/// against one free figure.
public struct SpaceNeed: Sendable, Hashable {
    /// The file system's room, or why it could not be measured.
    public enum Capacity: Sendable, Hashable {
        /// Free bytes, and the margin ``SpaceCheck/margin(forFileSystemOfSize:)`` keeps on it.
        case measured(freeBytes: Int64, marginBytes: Int64)
        /// `stat` or `statvfs` failed; nothing is refused on a guess.
        case unknown(reason: String)
    }

    /// The output roots on this file system, sorted.
    public var roots: [String]
    /// Declared sizes of the slices to fetch or refetch, plus what remains of each resume.
    public var bytesToTransfer: Int64
    /// Slices to transfer whose size the manifest does not declare (not in ``bytesToTransfer``).
    public var unsizedToTransfer: Int
    public var capacity: Capacity

    public init(roots: [String], bytesToTransfer: Int64, unsizedToTransfer: Int, capacity: Capacity) {
        self.roots = roots
        self.bytesToTransfer = bytesToTransfer
        self.unsizedToTransfer = unsizedToTransfer
        self.capacity = capacity
    }

    /// False only when the known sizes are measured not to fit (see ``SpaceCheck/fits(needed:free:margin:)``).
    public var fits: Bool {
        switch capacity {
        case .measured(let free, let margin): SpaceCheck.fits(needed: bytesToTransfer, free: free, margin: margin)
        case .unknown: true
        }
    }

    /// The plan's line for this file system, before the summary line:
    /// `Space: mirror, other: 1.2 GiB plus 3 slices of unknown size to fetch, 41.2 GiB free.`
    public var line: String {
        let head = "Space: \(roots.joined(separator: ", ")): \(bytesText) to fetch, "
        switch capacity {
        case .measured(let free, let margin):
            return head + (fits ? "\(ByteCount(free)) free." : "\(ByteCount(free)) free (less a \(ByteCount(margin)) margin): does not fit.")
        case .unknown(let reason):
            return head + "free space unknown (\(reason))."
        }
    }

    /// `not enough space for 'mirror': 1.0 PiB to fetch, 41.2 GiB free less a 412.0 MiB margin`,
    /// or `nil` when it fits.
    public var shortage: String? {
        guard case .measured(let free, let margin) = capacity, !fits else { return nil }
        let quoted = roots.map { "'\($0)'" }
        let names = quoted.count > 1 ? quoted.dropLast().joined(separator: ", ") + " and " + (quoted.last ?? "") : quoted.joined()
        return
            "not enough space for \(names)\(roots.count > 1 ? " (one file system)" : ""): \(ByteCount(bytesToTransfer)) to fetch, \(ByteCount(free)) free less a \(ByteCount(margin)) margin"
    }

    /// `1.2 GiB`, `1.2 GiB plus 3 slices of unknown size`, or `3 slices of unknown size`.
    var bytesText: String {
        let known = ByteCount(bytesToTransfer).description
        let unsized = "\(unsizedToTransfer) slice\(unsizedToTransfer == 1 ? "" : "s") of unknown size"
        if unsizedToTransfer == 0 { return known }
        return bytesToTransfer == 0 ? unsized : "\(known) plus \(unsized)"
    }
}
