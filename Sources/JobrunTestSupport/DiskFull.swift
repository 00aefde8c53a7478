import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small file systems a test mounts where it needs one (a full disk, a mount below an output
/// root, a read-only view): only as root, and only where `mount` works.
public enum DiskFull {
    /// Whether this process may mount a tmpfs (probed once, on a scratch folder).
    public static let canMount: Bool = {
        guard getuid() == 0, let probe = try? TemporaryDirectory(prefix: "jobrun-mount-probe") else { return false }
        defer { probe.remove() }
        guard mount(at: probe.path) else { return false }
        unmount(probe.path)
        return true
    }()

    /// A tmpfs of `size` (mount(8)'s syntax) at `path`; whether it worked.
    public static func mount(at path: String, size: String = "1m") -> Bool {
        guard let mount = Executables.find("mount"),
            let result = try? BinaryRunner(executable: mount).runBlocking(["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path], timeout: .seconds(10))
        else { return false }
        return result.status == 0
    }

    /// `source` mounted again at `path`, read-only.
    public static func bindReadOnly(_ source: String, at path: String) -> Bool {
        guard let mount = Executables.find("mount") else { return false }
        guard let bound = try? BinaryRunner(executable: mount).runBlocking(["--bind", source, path], timeout: .seconds(10)), bound.status == 0
        else { return false }
        guard let readOnly = try? BinaryRunner(executable: mount).runBlocking(["-o", "remount,bind,ro", path], timeout: .seconds(10)),
            readOnly.status == 0
        else {
            unmount(path)
            return false
        }
        return true
    }

    public static func unmount(_ path: String) {
        guard let umount = Executables.find("umount") else { return }
        _ = try? BinaryRunner(executable: umount).runBlocking([path], timeout: .seconds(10))
    }
}
