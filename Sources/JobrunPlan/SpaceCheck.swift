import JobrunCore

/// Whether what a plan would fetch fits where it would be written: pure decisions, and one
/// measurement per output root.
///
/// The margin keeps room the sizes do not count: file-system blocks and metadata, partial and
/// metadata files, and whatever else writes to the same disk meanwhile.
///
/// | file system size   | margin        |
/// |--------------------|---------------|
/// | under 640 MiB      | a tenth of it |
/// | 640 MiB – 6.25 GiB | 64 MiB        |
/// | larger             | 1% of it      |
public enum SpaceCheck {
    public static let minimumMargin: Int64 = 64 << 20

    /// `max(64 MiB, 1% of size)`, but never more than a tenth of the file system, so that a small
    /// one is not mostly margin.
    public static func margin(forFileSystemOfSize size: Int64) -> Int64 {
        let size = max(0, size)
        return min(max(minimumMargin, size / 100), size / 10)
    }

    /// `needed` fits when it is at most `free − margin`. Nothing to write always fits, even on a
    /// full disk (the run may only have slices of unknown size, or nothing for this root).
    public static func fits(needed: Int64, free: Int64, margin: Int64) -> Bool {
        guard needed > 0 else { return true }
        let (room, overflow) = free.subtractingReportingOverflow(margin)
        return !overflow && needed <= room
    }

    /// One need per file system that the plan's changes write to, ordered by their first root.
    /// `measure` is asked once per output root (``FileSystemUsage/measure(nearest:)`` for real).
    public static func needs(
        of entries: [Plan.Entry], measure: (String) -> Result<FileSystemUsage, FileSystemUsage.Failure>
    ) -> [SpaceNeed] {
        var byRoot: [String: PlanCounts] = [:]
        for entry in entries where entry.counts.hasChanges {
            byRoot[entry.resource.outputRoot, default: PlanCounts()] += entry.counts
        }
        var byDevice: [UInt64: SpaceNeed] = [:]
        var unmeasured: [SpaceNeed] = []
        for (root, counts) in byRoot {
            switch measure(root) {
            case .success(let usage):
                var need =
                    byDevice[usage.device]
                    ?? SpaceNeed(
                        roots: [], bytesToTransfer: 0, unsizedToTransfer: 0,
                        capacity: .measured(freeBytes: usage.freeBytes, marginBytes: margin(forFileSystemOfSize: usage.sizeBytes)))
                need.roots.append(root)
                need.bytesToTransfer = PlanCounts.saturatingSum(need.bytesToTransfer, counts.bytesToTransfer)
                need.unsizedToTransfer += counts.unsizedToTransfer
                byDevice[usage.device] = need
            case .failure(let failure):
                unmeasured.append(
                    SpaceNeed(
                        roots: [root], bytesToTransfer: counts.bytesToTransfer, unsizedToTransfer: counts.unsizedToTransfer,
                        capacity: .unknown(reason: failure.description)))
            }
        }
        var needs = Array(byDevice.values) + unmeasured
        for i in needs.indices { needs[i].roots.sort() }
        return needs.sorted { $0.roots.lexicographicallyPrecedes($1.roots) }
    }
}
