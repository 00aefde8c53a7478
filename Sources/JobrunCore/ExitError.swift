/// An error that ends a command with a specific exit status after its message was shown.
public struct ExitError: Error, Sendable, CustomStringConvertible {
    public var status: ExitStatus
    public var message: String?

    public init(_ status: ExitStatus, _ message: String? = nil) {
        self.status = status
        self.message = message
    }

    public var description: String { message ?? "exit \(status.rawValue)" }
}
