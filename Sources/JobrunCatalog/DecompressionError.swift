/// Why an index could not be decompressed.
struct DecompressionError: Error, Sendable, Hashable {
    var message: String
    init(_ message: String) { self.message = message }
}
