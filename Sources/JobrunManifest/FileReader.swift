#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads whole input files with plain POSIX calls, refusing ones over a size limit before reading.
enum FileReader {
    enum Failure: Error, Equatable {
        case system(errno: Int32)
        case notRegularFile
        case tooLarge(size: Int64)
        case directory
    }

    static func read(_ path: String, limit: Int) -> Result<[UInt8], Failure> {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever. It
        // changes nothing for the regular files that pass the check below.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 { return .failure(.system(errno: errno)) }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) != 0 { return .failure(.system(errno: errno)) }
        if (st.st_mode & S_IFMT) == S_IFDIR { return .failure(.directory) }
        if (st.st_mode & S_IFMT) != S_IFREG { return .failure(.notRegularFile) }
        let size = Int64(st.st_size)
        if size > Int64(limit) { return .failure(.tooLarge(size: size)) }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        var filled = 0
        while true {
            if filled == bytes.count { bytes.append(contentsOf: [UInt8](repeating: 0, count: 65536)) }
            let n = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return systemRead(fd, base + filled, buffer.count - filled)
            }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.system(errno: errno))
            }
            if n == 0 { break }
            filled += n
            if filled > limit { return .failure(.tooLarge(size: Int64(filled))) }
        }
        bytes.removeSubrange(filled...)
        return .success(bytes)
    }

    static func describe(_ failure: Failure) -> String {
        switch failure {
        case .system(let e): String(cString: strerror(e))
        case .notRegularFile: "not a regular file"
        case .directory: "is a directory"
        case .tooLarge(let size): "it is \(size) bytes; the limit is 256 MiB"
        }
    }
}

#if canImport(Glibc)
private let systemRead = Glibc.read
#elseif canImport(Darwin)
private let systemRead = Darwin.read
#endif
