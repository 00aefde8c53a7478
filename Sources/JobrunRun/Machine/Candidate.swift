import JobrunCore
/// A job a gate is asked about.
struct Candidate {
    var job: SliceID
    var resource: Int
    var origin: String
    /// Bytes the slice is expected to transfer, when its size is declared (set by the caller of
    /// the gate that needs it).
    var expectedBytes: ByteCount?
    var throughput: Throughput?

    init(job: SliceID, resource: Int, origin: String, expectedBytes: ByteCount? = nil, throughput: Throughput?) {
        self.job = job
        self.resource = resource
        self.origin = origin
        self.expectedBytes = expectedBytes
        self.throughput = throughput
    }
}
