#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads whole files with plain POSIX calls, refusing ones over a size limit before reading:
/// manifests and checksum lists (JobrunManifest), partial-download metadata (JobrunPlan).
public enum FileReader {
    public enum Failure: Error, Equatable {
        case system(errno: Int32)
        case notRegularFile
        case tooLarge(size: Int64)
        case directory
    }

    public static func read(_ path: String, limit: Int) -> Result<[UInt8], Failure> {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever. It
        // changes nothing for the regular files that pass the check below.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 { return .failure(.system(errno: errno)) }
        defer { close(fd) }
        return read(descriptor: fd, limit: limit)
    }

    /// The text of the regular file at `path` (UTF-8, invalid bytes replaced), or `nil` when it
    /// cannot be read whole within `limit` bytes: the kernel's small files under `/proc` and `/sys`.
    public static func text(_ path: String, limit: Int = 65_536) -> String? {
        guard case .success(let bytes) = read(path, limit: limit) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads the regular file open as `fd` (the caller opened it, and closes it) to its end.
    public static func read(descriptor fd: Int32, limit: Int) -> Result<[UInt8], Failure> {
        var st = stat()
        if fstat(fd, &st) != 0 { return .failure(.system(errno: errno)) }
        if FileStatus.isDirectory(mode: st.st_mode) { return .failure(.directory) }
        if !FileStatus.isRegularFile(mode: st.st_mode) { return .failure(.notRegularFile) }
        let size = Int64(st.st_size)
        if size > Int64(limit) { return .failure(.tooLarge(size: size)) }
        // Read straight into an uninitialised buffer of the file's size (no zero fill, no copy);
        // a file that grows while being read is read in 64 KiB steps after that.
        var failure: Failure?
        var bytes = [UInt8](unsafeUninitializedCapacity: Int(size)) { buffer, initialized in
            var filled = 0
            while filled < buffer.count {
                guard let base = buffer.baseAddress else { break }
                let n = systemRead(fd, base + filled, buffer.count - filled)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = .system(errno: errno)
                    break
                }
                if n == 0 { break }
                filled += n
            }
            initialized = filled
        }
        if let failure { return .failure(failure) }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.system(errno: errno))
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > limit { return .failure(.tooLarge(size: Int64(bytes.count))) }
        }
        return .success(bytes)
    }
}

#if canImport(Glibc)
private let systemRead = Glibc.read
#elseif canImport(Darwin)
private let systemRead = Darwin.read
#endif

extension FileReader {
    /// 3 when `bytes` start with a UTF-8 byte order mark (which Windows tools write), else 0:
    /// readers skip it, and columns do not count it.
    public static func byteOrderMarkLength(_ bytes: some Collection<UInt8>) -> Int {
        bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    /// Calls `body` with each line of a text file's `bytes` and its number (from 1): a leading
    /// byte order mark skipped, lines ended by LF, a CR before it dropped.
    public static func forEachLine(in bytes: [UInt8], _ body: (_ number: Int, _ line: ArraySlice<UInt8>) -> Void) {
        var number = 0
        var start = byteOrderMarkLength(bytes)
        while start < bytes.count {
            number += 1
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            var lineEnd = end
            if lineEnd > start, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            body(number, bytes[start..<lineEnd])
            start = end + 1
        }
    }
}
