public import JobrunCore

/// Why a resource's catalog is refused: its problems, located in the catalog, its signature or
/// the manifest, the first the one that decided.
public struct CatalogRefusal: Error, Sendable {
    /// Problems of one catalog reported at most: the rest are counted.
    public static let reportedProblems = 100

    public var diagnostics: [Diagnostic]

    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

    public init(_ message: String, at location: SourceLocation?) { diagnostics = [.error(message, at: location)] }

    /// The deciding problem, as a sentence.
    public var message: String { (diagnostics.first { $0.severity == .error } ?? diagnostics.first)?.message ?? "refused" }
}
