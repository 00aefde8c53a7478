extension Int64 {
    /// `self + other`, or `.max` where the sum would overflow: byte counts added from manifests
    /// (sizes up to 1 PiB each, any number of them) must not trap.
    public func saturatingAdding(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
