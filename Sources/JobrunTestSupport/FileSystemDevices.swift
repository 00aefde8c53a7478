import JobrunCore
import JobrunSystem

/// Which file system a path or descriptor is on, for tests of code that must reach every file
/// system below a folder. `/proc` below `/` stands for such a mount: nothing is written there.
public enum FileSystemDevices {
    public static func device(atPath path: String) -> UInt64? {
        (try? FileIdentity.ofFile(atPath: path))?.device
    }

    public static func device(of fd: Int32) -> UInt64? { FileSystemSet.device(of: fd) }

    /// Whether `/proc` is a file system other than `/`'s (it is wherever Linux runs).
    public static let procIsAMount: Bool = {
        guard let root = device(atPath: "/"), let proc = device(atPath: "/proc") else { return false }
        return root != proc
    }()
}
