#if canImport(Glibc)
internal import CLinux
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file systems a tree of folders spans, with one open descriptor on each: a folder below an
/// output root may be another mount, and `syncfs(2)` flushes only the file system of the
/// descriptor it is given. The descriptors stay the caller's, open for as long as the set is used.
public struct FileSystemSet: Sendable, Equatable {
    /// Each file system's device (`st_dev`; `nil` when `fstat` failed, which counts as a file
    /// system of its own) and a descriptor on it, in the order they were added.
    public private(set) var members: [Member] = []

    public struct Member: Sendable, Equatable {
        public var device: UInt64?
        public var descriptor: Int32
    }

    public init() {}

    /// A set holding the file system of `fd`.
    public init(_ fd: Int32) {
        add(fd)
    }

    public var descriptors: [Int32] { members.map(\.descriptor) }

    /// The device (`st_dev`) of the file system the open descriptor `fd` is on; nil when `fstat`
    /// fails.
    public static func device(of fd: Int32) -> UInt64? {
        var status = stat()
        return fstat(fd, &status) == 0 ? UInt64(truncatingIfNeeded: status.st_dev) : nil
    }

    /// Adds the file system of the open descriptor `fd`, unless one already added is on it.
    public mutating func add(_ fd: Int32) {
        let device = Self.device(of: fd)
        if let device, members.contains(where: { $0.device == device }) { return }
        members.append(Member(device: device, descriptor: fd))
    }

    /// Flushes every file system of the set with `flush` (``flush(_:)`` unless a test gives
    /// another); the first error number, after all of them were tried.
    public func sync(with flush: (Int32) -> Int32? = Self.flush) -> Int32? {
        #if !os(Linux)
        // sync(2) flushes every file system at once.
        if !members.isEmpty { return flush(members[0].descriptor) }
        #endif
        var first: Int32?
        for member in members {
            if let error = flush(member.descriptor), first == nil { first = error }
        }
        return first
    }

    /// Flushes the file system of the open descriptor `fd`; the error number when that failed.
    /// Safe from any thread while `fd` is open.
    public static func flush(_ fd: Int32) -> Int32? {
        #if os(Linux)
        return syncfs(fd) == 0 ? nil : errno
        #else
        // Without syncfs(2): sync(2) flushes everything, which is at least as strong.
        sync()
        return nil
        #endif
    }
}
