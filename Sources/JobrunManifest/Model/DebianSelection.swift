/// What of a Debian repository a resource mirrors.
public struct DebianSelection: Sendable, Hashable {
    public var suite: String
    public var components: [String]
    public var architectures: [String]

    public init(suite: String, components: [String], architectures: [String]) {
        self.suite = suite
        self.components = components
        self.architectures = architectures
    }
}
