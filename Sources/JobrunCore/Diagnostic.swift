/// One compiler-style message about the input: `file:line:col: error: message`.
public struct Diagnostic: Hashable, Sendable {
    public enum Severity: String, Sendable, Hashable, Comparable {
        case error, warning, note

        private var rank: Int {
            switch self {
            case .error: 0
            case .warning: 1
            case .note: 2
            }
        }
        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    public var severity: Severity
    /// Where the problem is; `nil` only for problems that have no place (an empty command line, say).
    public var location: SourceLocation?
    public var message: String
    /// Secondary places, each rendered with its own snippet (e.g. "first defined here").
    public var notes: [Diagnostic]

    public init(_ severity: Severity, _ message: String, at location: SourceLocation?, notes: [Diagnostic] = []) {
        self.severity = severity
        self.location = location
        self.message = message
        self.notes = notes
    }

    public static func error(_ message: String, at location: SourceLocation?, notes: [Diagnostic] = []) -> Diagnostic {
        Diagnostic(.error, message, at: location, notes: notes)
    }

    public static func warning(_ message: String, at location: SourceLocation?, notes: [Diagnostic] = []) -> Diagnostic {
        Diagnostic(.warning, message, at: location, notes: notes)
    }

    public static func note(_ message: String, at location: SourceLocation?) -> Diagnostic {
        Diagnostic(.note, message, at: location)
    }
}

/// Collects diagnostics instead of throwing the first one, so a user sees every mistake at once.
public struct DiagnosticCollector: Sendable {
    public private(set) var diagnostics: [Diagnostic] = []
    /// How many errors and warnings are kept at most, when limited: a file of outside input
    /// (a catalog) with a problem on each of its million lines is reported by its first ones and
    /// a count, not held whole in memory.
    public let limit: Int?
    /// Errors and warnings past ``limit``, counted only.
    public private(set) var dropped = 0

    public init(limit: Int? = nil) { self.limit = limit }

    public var hasErrors: Bool { dropped > 0 || diagnostics.contains { $0.severity == .error } }
    public var errorCount: Int { diagnostics.count { $0.severity == .error } }
    public var warningCount: Int { diagnostics.count { $0.severity == .warning } }

    public mutating func emit(_ diagnostic: Diagnostic) { keep(diagnostic) }

    public mutating func error(_ message: String, at location: SourceLocation?, notes: [Diagnostic] = []) {
        keep(.error(message, at: location, notes: notes))
    }

    public mutating func warning(_ message: String, at location: SourceLocation?, notes: [Diagnostic] = []) {
        keep(.warning(message, at: location, notes: notes))
    }

    private mutating func keep(_ diagnostic: Diagnostic) {
        guard let limit, diagnostics.count >= limit else { return diagnostics.append(diagnostic) }
        dropped += 1
        if dropped == 1 {
            diagnostics.append(.error("more problems follow; only the first \(limit) are reported", at: diagnostic.location))
        }
    }

    public mutating func append(contentsOf other: [Diagnostic]) { diagnostics.append(contentsOf: other) }

    /// Diagnostics in a stable order: by file, line, column, then message. Unlocated ones first.
    public var sorted: [Diagnostic] {
        diagnostics.enumerated().sorted { a, b in
            let la = a.element.location, lb = b.element.location
            switch (la, lb) {
            case (nil, nil): return a.offset < b.offset
            case (nil, _): return true
            case (_, nil): return false
            case let (x?, y?):
                if x != y { return x < y }
                if a.element.message != b.element.message { return a.element.message < b.element.message }
                return a.offset < b.offset
            }
        }.map(\.element)
    }
}
