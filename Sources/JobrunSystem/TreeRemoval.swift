#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes a file or a whole folder tree, never following a symbolic link: a link inside the
/// tree is removed itself, and what it points at is left alone. For jobrun's own folders only
/// (what it set aside before), never for a mirror's content.
public enum TreeRemoval {
    /// Removes what `path` names; whether nothing is left there. A folder of another file
    /// system mounted inside is left, and with it its parents.
    @discardableResult
    public static func remove(_ path: String) -> Bool {
        if unlink(path) == 0 || errno == ENOENT { return true }
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return false }
        var status = stat()
        guard fstat(folder, &status) == 0 else {
            close(folder)
            return false
        }
        emptyFolder(folder, device: status.st_dev)
        return rmdir(path) == 0
    }

    /// Removes everything in the folder open on `fd` (on `device`), and closes it. Names are
    /// kept as the bytes the folder holds, whatever their encoding. A folder jobrun may not write
    /// (a mirror's read-only folder, kept in a replaced version) is given write permission first.
    private static func emptyFolder(_ fd: Int32, device: dev_t) {
        var own = stat()
        if fstat(fd, &own) == 0, own.st_mode & S_IRWXU != S_IRWXU { _ = fchmod(fd, (own.st_mode & 0o7777) | S_IRWXU) }
        guard let stream = fdopendir(fd) else {
            close(fd)
            return
        }
        defer { closedir(stream) }
        var names: [[CChar]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in Array(bytes.prefix { $0 != 0 }.map { CChar(bitPattern: $0) }) + [0] }
            if name != [46, 0] && name != [46, 46, 0] { names.append(name) }
        }
        for name in names where unlinkat(fd, name, 0) != 0 {
            var child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            // A folder that may not be read: unlinkat said it is one (a link would have gone).
            if child < 0, errno == EACCES, fchmodat(fd, name, S_IRWXU, 0) == 0 {
                child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            guard child >= 0 else { continue }
            var status = stat()
            guard fstat(child, &status) == 0, status.st_dev == device else {
                close(child)
                continue
            }
            emptyFolder(child, device: device)
            unlinkat(fd, name, AT_REMOVEDIR)
        }
    }
}
