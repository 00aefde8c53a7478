public import JobrunCore
public import JobrunSystem

extension FileIdentity {
    /// `lstat(2)` failed.
    public struct StatFailure: Error, CustomStringConvertible {
        public var path: String
        public var errno: Int32
        public var description: String { "cannot stat '\(path)': \(systemErrorText(errno))" }
    }

    /// The identity of the file at `path`, as the mirror state takes it (a link is not followed).
    public static func ofFile(atPath path: String) throws -> FileIdentity {
        var status = stat()
        guard lstat(path, &status) == 0 else { throw StatFailure(path: path, errno: errno) }
        return FileIdentity(status)
    }
}
