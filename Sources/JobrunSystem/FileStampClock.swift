#if canImport(Glibc)
internal import CLinux
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which files get their times from this machine's coarse clock. A local Linux file system
/// stamps a change time from `current_time()`: the coarse clock, or a finer reading never
/// below it; so once the coarse clock has passed a file's change time, every later write stamps
/// a later one. Stamps from elsewhere (an NFS or SMB server, a FUSE daemon, overlayfs's lower
/// layers) keep to no clock of this machine.
public enum FileStampClock {
    /// The coarse clock now, nanoseconds since the epoch; `nil` where there is none to trust
    /// (not Linux, or a resolution below the 1 ms of a 1000 Hz kernel, as a sandbox that
    /// emulates the clocks reports).
    public static func coarseNow() -> Int64? {
        #if os(Linux)
        guard hasCoarseClock else { return nil }
        var now = timespec()
        guard clock_gettime(CLOCK_REALTIME_COARSE, &now) == 0 else { return nil }
        return FileIdentity.nanoseconds(Int64(now.tv_sec), Int64(now.tv_nsec))
        #else
        return nil
        #endif
    }

    static let hasCoarseClock: Bool = {
        #if os(Linux)
        var resolution = timespec()
        guard clock_getres(CLOCK_REALTIME_COARSE, &resolution) == 0 else { return false }
        return resolution.tv_sec > 0 || resolution.tv_nsec >= 1_000_000
        #else
        return false
        #endif
    }()

    /// The file systems (`f_type`) Linux stamps from its coarse clock, with nanosecond or
    /// whole-second times: ext2/3/4, XFS, Btrfs, tmpfs, ramfs, F2FS and ZFS. Not overlayfs: its
    /// files keep the times of layers it does not name.
    static let coarseStamped: Set<Int64> = [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0x8584_58F6, 0xF2F5_2010, 0x2FC1_2FC1]

    /// The device of the folder open as `descriptor` when the files in it (on that device: a
    /// file mounted over one has another) are stamped from the coarse clock; otherwise `nil`.
    public static func coarseDevice(ofFolder descriptor: Int32) -> UInt64? {
        #if os(Linux)
        guard hasCoarseClock, coarseStamped.contains(jobrun_file_system_type(descriptor)) else { return nil }
        return FileSystemSet.device(of: descriptor)
        #else
        return nil
        #endif
    }
}
