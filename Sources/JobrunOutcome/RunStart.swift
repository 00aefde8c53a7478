/// The first event's facts.
public struct RunStart: Sendable, Hashable {
    /// `plan`, `apply`, `verify`.
    public var command: String
    public var runID: String
    /// The command line with secrets replaced (``ArgumentRedaction``).
    public var arguments: [String]
    /// The SHA-256 of the manifests' bytes, in the order they were read.
    public var manifestsDigest: String?

    public init(command: String, runID: String, arguments: [String], manifestsDigest: String?) {
        self.command = command
        self.runID = runID
        self.arguments = arguments
        self.manifestsDigest = manifestsDigest
    }
}
