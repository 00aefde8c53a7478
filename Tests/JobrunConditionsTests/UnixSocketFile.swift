import Foundation

/// A Unix stream socket bound to a path, for the probe's tests of a bus that is not there:
/// listening and never accepting (a hung daemon: connecting works, nothing ever answers), or
/// closed right away (a stale socket file: connecting is refused).
final class UnixSocketFile {
    private var descriptor: Int32

    /// Binds `path`; listens when `isListening`, else closes the socket and leaves its file.
    init(path: String, isListening: Bool) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw POSIXError(.ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, !isListening || listen(descriptor, 8) == 0 else {
            let code = errno
            close()
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        if !isListening { close() }
    }

    deinit { close() }

    /// Closes the socket (its file stays). Idempotent.
    func close() {
        guard descriptor >= 0 else { return }
        _ = closeDescriptor(descriptor)
        descriptor = -1
    }
}

/// `close(2)`, under a name the method above does not shadow.
private func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }
