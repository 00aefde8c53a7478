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
    /// Removes what `path` names; whether nothing is left there.
    @discardableResult
    public static func remove(_ path: String) -> Bool {
        if unlink(path) == 0 || errno == ENOENT { return true }
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return false }
        emptyFolder(folder)
        return rmdir(path) == 0
    }

    /// Removes everything in the folder open on `fd`, and closes it.
    private static func emptyFolder(_ fd: Int32) {
        guard let stream = fdopendir(fd) else {
            close(fd)
            return
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        for name in names where unlinkat(fd, name, 0) != 0 {
            let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard child >= 0 else { continue }
            emptyFolder(child)
            unlinkat(fd, name, AT_REMOVEDIR)
        }
    }
}
