/// Why the mirror state could not be used. None of these blocks the mirror: the caller says so
/// once and goes on without the store (hashing every file, as without one).
public enum StateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database was made by a newer jobrun (its schema version is above this one's): it is
    /// left as it is, never rewritten.
    case newerSchema(path: String, found: Int, supported: Int)
    /// Not a database, or a damaged one.
    case corrupt(path: String, detail: String)
    /// Another process holds it (beyond the short wait).
    case locked(path: String)
    /// Anything else SQLite or the file system reported.
    case failed(path: String, operation: String, detail: String)

    public var description: String {
        switch self {
        case .newerSchema(let path, let found, let supported):
            "'\(path)' was written by a newer jobrun (state schema \(found); this one knows up to \(supported)); it is left untouched"
        case .corrupt(let path, let detail):
            "'\(path)' is damaged (\(detail))"
        case .locked(let path):
            "'\(path)' is locked by another process"
        case .failed(let path, let operation, let detail):
            "'\(path)': cannot \(operation): \(detail)"
        }
    }
}
