/// The first event's facts.
public struct RunStart: Sendable, Hashable {
    /// `plan`, `apply`, `verify`.
    public var command: String
    public var runID: String
    /// The command line with secrets replaced (``ArgumentRedaction``).
    public var arguments: [String]
    /// The SHA-256 of the manifests' bytes, in the order they were read.
    public var manifestsDigest: String?
    /// What the run works on (after `--resource` and `--shard`); `nil` when it ended before the
    /// manifests were read.
    public var resources: Int?
    public var slices: Int?

    public init(command: String, runID: String, arguments: [String], manifestsDigest: String?, resources: Int? = nil, slices: Int? = nil) {
        self.command = command
        self.runID = runID
        self.arguments = arguments
        self.manifestsDigest = manifestsDigest
        self.resources = resources
        self.slices = slices
    }
}
