#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// When a file's identity was taken, by the clocks that decide whether any later write would
/// change it (``FileIdentity/isSettled(seen:)``). Read before the `stat`, so that the identity
/// was seen no earlier.
public struct LookTime: Sendable, Hashable {
    /// The wall clock (`CLOCK_REALTIME`), nanoseconds since the epoch.
    public var wall: Int64
    /// The kernel's coarse clock (`CLOCK_REALTIME_COARSE`), read just before `wall`, where the
    /// file's times are stamped from it (``FileStampClock``); otherwise `nil`.
    public var coarse: Int64?

    public init(wall: Int64, coarse: Int64? = nil) {
        self.wall = wall
        self.coarse = coarse
    }

    /// This look, for a file on `device` in a folder stamped from the coarse clock on
    /// `coarseDevice`: a file on another device (mounted over its name) keeps only the wall clock.
    public func of(fileOn device: UInt64, coarseDevice: UInt64?) -> LookTime {
        device == coarseDevice ? self : LookTime(wall: wall)
    }

    /// Now, with the coarse clock when `coarse` (the file's folder is stamped from it).
    public static func now(coarse: Bool) -> LookTime {
        let coarseNow = coarse ? FileStampClock.coarseNow() : nil
        return LookTime(wall: FileIdentity.now(), coarse: coarseNow)
    }
}
