#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#elseif canImport(Darwin)
public import Darwin
#endif

/// What tells a file's bytes apart without reading them: its device and inode, size, and
/// modification and change times. Writing to a file, truncating it, or replacing it changes at
/// least one of them; the change time (`ctime`) cannot be set by a user, only by the kernel.
public struct FileIdentity: Sendable, Hashable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var mtimeNanoseconds: Int64
    public var ctimeNanoseconds: Int64

    public init(device: UInt64, inode: UInt64, size: Int64, mtimeNanoseconds: Int64, ctimeNanoseconds: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
        self.ctimeNanoseconds = ctimeNanoseconds
    }

    /// The identity `stat(2)` describes.
    public init(_ status: stat) {
        #if canImport(Darwin)
        let m = status.st_mtimespec
        let c = status.st_ctimespec
        #else
        let m = status.st_mtim
        let c = status.st_ctim
        #endif
        self.init(
            device: UInt64(truncatingIfNeeded: status.st_dev), inode: UInt64(truncatingIfNeeded: status.st_ino),
            size: Int64(status.st_size),
            mtimeNanoseconds: Int64(m.tv_sec) * 1_000_000_000 + Int64(m.tv_nsec),
            ctimeNanoseconds: Int64(c.tv_sec) * 1_000_000_000 + Int64(c.tv_nsec))
    }

    /// Whether this identity, seen at `instant` (nanoseconds since the epoch, the wall clock),
    /// would change with any later write to the file.
    ///
    /// File systems stamp times from a clock that advances in steps (a scheduler tick, or a
    /// whole second where the change time has no nanoseconds): a write in the same step as the
    /// last change leaves the times as they were. Seen at least a step after its change time,
    /// the file cannot change again unnoticed; seen sooner, it can (git calls such an entry
    /// "racily clean").
    public func isSettled(at instant: Int64) -> Bool { instant >= settlesAt }

    /// The first instant at which ``isSettled(at:)`` holds: a step after the change time (two
    /// seconds when the change time has no nanoseconds, 50 ms otherwise: several ticks).
    public var settlesAt: Int64 {
        ctimeNanoseconds + (ctimeNanoseconds % 1_000_000_000 == 0 ? 2_000_000_000 : 50_000_000)
    }

    /// Whether this is the file `written` describes, as it was when its writer closed it: the
    /// same device, inode, size and modification time (a rename since changes only the change
    /// time).
    public func isSameWrite(as written: FileIdentity) -> Bool {
        device == written.device && inode == written.inode && size == written.size && mtimeNanoseconds == written.mtimeNanoseconds
    }

    /// The wall clock in nanoseconds since the epoch: the clock file times are stamped from.
    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
