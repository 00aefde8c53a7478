#if canImport(Glibc)
internal import CLinux
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How long after a file's change time a look at the file proves that any later write changes
/// its identity (``FileIdentity/isSettled(at:step:)``).
///
/// A file system stamps a change with a clock that advances in ticks, rounded down to the stamp's
/// unit; a write in the same tick as the last change leaves the time as it was. Linux's local file
/// systems stamp from the kernel's coarse clock, which lags the real one by less than a tick: a
/// look taken two ticks and a unit after the change time is later than any stamp a write before
/// it could get, so every later write stamps a later time. Where the stamping clock is not known
/// to be this machine's (NFS, FUSE, SMB servers keep their own), several ticks of any clock (50
/// ms) are the rule, as they have always been.
public struct TimeStep: Sendable, Hashable {
    /// One tick of the clock that stamps the times.
    public let tick: Int64

    public init(tick: Int64) {
        self.tick = tick
    }

    /// Any file system: 50 ms after the change time (two ticks of 25 ms).
    public static let conservative = TimeStep(tick: 25_000_000)

    /// The first instant (wall clock, ns since the epoch) at which a look at `file` proves it
    /// settled: two seconds after a change time without nanoseconds (a file system stamping whole
    /// seconds, or two, as FAT); otherwise two ticks past the stamp's unit, at most the largest
    /// power of ten that divides the time (100 ns for NTFS's stamps, 10 ms for exFAT's, 1 ns as a
    /// rule for Linux's).
    public func settlesAt(_ file: FileIdentity) -> Int64 {
        let c = file.ctimeNanoseconds
        if c % 1_000_000_000 == 0 { return c + 2_000_000_000 }
        var unit: Int64 = 1
        while unit < 100_000_000, c % (unit * 10) == 0 { unit *= 10 }
        return c + unit + 2 * tick
    }

    /// The file systems whose change times Linux stamps from its own coarse clock (`f_type`):
    /// ext2/3/4, XFS, Btrfs, tmpfs, ramfs, F2FS and overlayfs (whose upper layer is one of these).
    static let localFileSystems: Set<Int64> = [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0x8584_58F6, 0xF2F5_2010, 0x794C_7630]

    /// The tick of the clock file times are stamped from: the kernel's coarse clock's resolution.
    static let coarseTick: Int64? = {
        #if os(Linux)
        var resolution = timespec()
        guard clock_getres(CLOCK_REALTIME_COARSE, &resolution) == 0 else { return nil }
        let tick = Int64(resolution.tv_sec) * 1_000_000_000 + Int64(resolution.tv_nsec)
        // A tick longer than the conservative step's is not worth trusting over it.
        return tick > 0 && tick <= conservative.tick ? tick : nil
        #else
        return nil
        #endif
    }()

    /// The step for files on the file system of the folder at `path`, and that file system's
    /// device: the coarse clock's on a local file system, ``conservative`` otherwise (or when
    /// either cannot be told).
    public static func of(folder path: String) -> (device: UInt64, step: TimeStep)? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let device = UInt64(truncatingIfNeeded: status.st_dev)
        #if os(Linux)
        guard let tick = coarseTick, localFileSystems.contains(Int64(jobrun_file_system_type(path))) else { return (device, .conservative) }
        return (device, TimeStep(tick: tick))
        #else
        return (device, .conservative)
        #endif
    }
}

/// The time steps beneath one output root: its own file system's (``TimeStep/of(folder:)``), and
/// the conservative one for a file on any other device (a mount below the root).
public struct RootTimeSteps: Sendable, Hashable {
    public let device: UInt64?
    public let step: TimeStep

    public init(device: UInt64?, step: TimeStep) {
        self.device = device
        self.step = step
    }

    /// Steps that trust no clock but the conservative rule.
    public static let conservative = RootTimeSteps(device: nil, step: .conservative)

    /// The steps beneath the output root at `path` (conservative when it cannot be looked at).
    public static func of(root path: String) -> RootTimeSteps {
        guard let (device, step) = TimeStep.of(folder: path) else { return .conservative }
        return RootTimeSteps(device: device, step: step)
    }

    /// The step for `file`.
    public func step(for file: FileIdentity) -> TimeStep {
        file.device == device ? step : .conservative
    }
}
