public import JobrunPlan
public import JobrunFiles

// The counts of `plan` and `verify` named as in their JSON summaries, for the event stream's
// `run_end` (apply's are `ApplyResult.Counts.named`).

extension PlanCounts {
    public func named(resources: Int) -> [(name: String, value: Int64)] {
        [
            ("resources", Int64(resources)), ("slices", Int64(slices)), ("fetch", Int64(fetch)), ("resume", Int64(resume)),
            ("refetch", Int64(refetch)), ("up_to_date", Int64(upToDate)), ("revalidate", Int64(revalidate)), ("deferred", Int64(deferred)),
            ("bytes_to_transfer", bytesToTransfer), ("unsized_to_transfer", Int64(unsizedToTransfer)),
            ("size_only", Int64(integrity.sizeOnly)), ("unverified", Int64(integrity.unverified)),
        ]
    }
}

extension MirrorVerification {
    /// `extra` only when extra files were looked for (`--extra`).
    public var namedCounts: [(name: String, value: Int64)] {
        var named: [(name: String, value: Int64)] = [
            ("slices", Int64(counts.slices)), ("ok", Int64(counts.ok)), ("mismatched", Int64(counts.mismatched)),
            ("missing", Int64(counts.missing)), ("errors", Int64(counts.errors)),
        ]
        if let extraFiles { named.append(("extra", Int64(extraFiles.count))) }
        named += [("size_only", Int64(counts.withoutDigests.sizeOnly)), ("unverified", Int64(counts.withoutDigests.unverified))]
        return named
    }
}
