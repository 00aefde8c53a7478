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
            mtimeNanoseconds: Self.nanoseconds(Int64(m.tv_sec), Int64(m.tv_nsec)) ?? Self.wrapped(Int64(m.tv_sec), Int64(m.tv_nsec)),
            ctimeNanoseconds: Self.nanoseconds(Int64(c.tv_sec), Int64(c.tv_nsec)) ?? Self.unknownTime)
    }

    /// A change time nanoseconds since the epoch cannot hold (before 1677 or after 2262): an
    /// identity with it never settles, so its file is always read.
    public static let unknownTime = Int64.max

    /// Seconds and nanoseconds as nanoseconds since the epoch, or `nil` past what 64 bits hold.
    static func nanoseconds(_ seconds: Int64, _ nanoseconds: Int64) -> Int64? {
        let (whole, over) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, overAgain) = whole.addingReportingOverflow(nanoseconds)
        return over || overAgain ? nil : sum
    }

    /// A modification time past what 64 bits of nanoseconds hold, wrapped around: still a
    /// different value for a different time (anyone may set it; `touch -d 2300-01-01`), where a
    /// saturated one would make two times alike.
    static func wrapped(_ seconds: Int64, _ nanoseconds: Int64) -> Int64 {
        seconds &* 1_000_000_000 &+ nanoseconds
    }

    /// Whether this identity, seen at `instant` (nanoseconds since the epoch, the wall clock),
    /// would change with any later write to the file.
    ///
    /// File systems stamp times from a clock that advances in steps (a scheduler tick, or a
    /// whole second where the change time has no nanoseconds): a write in the same step as the
    /// last change leaves the times as they were. Seen at least a step after its change time,
    /// the file cannot change again unnoticed; seen sooner, it can (git calls such an entry
    /// "racily clean").
    public func isSettled(at instant: Int64) -> Bool { settlesAt != .max && instant >= settlesAt }

    /// Whether this identity, seen at `look`, would change with any later write. Where the file
    /// is stamped from the coarse clock (`look.coarse`; ``FileStampClock``), once that clock has
    /// passed the change time every later stamp is later (for whole-second times, cut to the
    /// second, two seconds past), so the look need only come after the clock's next tick, and no
    /// assumption about how far that clock lags is made. Elsewhere, ``isSettled(at:)``'s step on
    /// the wall clock.
    public func isSettled(seen look: LookTime) -> Bool {
        guard let coarse = look.coarse else { return isSettled(at: look.wall) }
        guard ctimeNanoseconds != Self.unknownTime else { return false }
        if ctimeNanoseconds % 1_000_000_000 == 0 { return settlesAt != .max && coarse >= settlesAt }
        return coarse > ctimeNanoseconds
    }

    /// The first instant at which ``isSettled(at:)`` holds: a step after the change time (two
    /// seconds when the change time has no nanoseconds, 50 ms otherwise: several ticks);
    /// `Int64.max`, never, for an ``unknownTime``.
    public var settlesAt: Int64 {
        guard ctimeNanoseconds != Self.unknownTime else { return .max }
        let (at, over) = ctimeNanoseconds.addingReportingOverflow(ctimeNanoseconds % 1_000_000_000 == 0 ? 2_000_000_000 : 50_000_000)
        return over ? .max : at
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
        return nanoseconds(Int64(ts.tv_sec), Int64(ts.tv_nsec)) ?? .max
    }
}
