/// Why a key, a signature or a signed file is not trusted.
public struct TrustProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    /// The line of the key or signature file it is about, when it is about one.
    public var line: Int?

    init(_ message: String, line: Int? = nil) {
        self.message = message
        self.line = line
    }

    public var description: String { message }
}
