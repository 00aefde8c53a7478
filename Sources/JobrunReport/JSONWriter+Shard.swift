public import JobrunManifest
public import JobrunJSON

extension JSONWriter {
    /// `null` without `--shard`; else the shard (`index`, 0-based, of `count`), the plan's
    /// fingerprint every shard of it shares (`plan`), and its slices against all of them.
    public mutating func shard(_ shard: ShardSelection?) {
        guard let shard else {
            null()
            return
        }
        beginObject()
        key("index"); int(Int64(shard.spec.index))
        key("count"); int(Int64(shard.spec.count))
        key("plan"); string(shard.planFingerprint)
        key("slices"); int(Int64(shard.sliceCount))
        key("total_slices"); int(Int64(shard.totalSliceCount))
        endObject()
    }
}
