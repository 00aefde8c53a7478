#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one write loop: partial files, atomically written reports, and standard output.
public enum DescriptorIO {
    /// Writes every byte of `bytes` to `fd`, retrying short writes and EINTR. Returns `nil`, or
    /// the `errno` of the `write(2)` that failed (EIO when it wrote nothing).
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, base + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return EIO }
            offset += n
        }
        return nil
    }
}
