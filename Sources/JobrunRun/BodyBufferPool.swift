import Synchronization
import JobrunCore

/// Memory for bodies kept in memory (see ``BodySink``), recycled: the engine thread takes a
/// buffer when a response starts and the driver gives it back once the body is on disk.
/// Without it every small slice would cost a `malloc` and a `free` on two threads, and, for
/// bodies of tens of KiB, fresh pages (the allocator hands freed memory at the top of the heap
/// back to the kernel). Buffers come in power-of-two sizes; at most `keep` of each are kept.
final class BodyBufferPool: Sendable {
    private let freeLists = Mutex<[Int: [UnsafeMutableRawPointerBox]]>([:])
    private let keep: Int

    /// A buffer is a raw pointer; boxed so the pool's state is `Sendable`.
    struct UnsafeMutableRawPointerBox: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }

    init(keep: Int = 32) {
        self.keep = keep
    }

    deinit {
        freeLists.withLock { lists in
            for box in lists.values.joined() { free(box.pointer) }
        }
    }

    /// The size class a request of `bytes` gets: a power of two, at least 4 KiB.
    static func capacity(for bytes: Int) -> Int {
        var c = 4096
        while c < bytes { c <<= 1 }
        return c
    }

    /// A buffer of at least `bytes` bytes (its real size is `capacity(for: bytes)`); `nil` when
    /// memory is exhausted.
    func take(_ bytes: Int) -> UnsafeMutableRawPointer? {
        let size = Self.capacity(for: bytes)
        if let box = freeLists.withLock({ $0[size]?.popLast() }) { return box.pointer }
        return malloc(size)
    }

    /// Returns a buffer that `take(bytes)` handed out.
    func give(_ pointer: UnsafeMutableRawPointer, bytes: Int) {
        let size = Self.capacity(for: bytes)
        let kept = freeLists.withLock { lists -> Bool in
            guard lists[size, default: []].count < keep else { return false }
            lists[size, default: []].append(UnsafeMutableRawPointerBox(pointer: pointer))
            return true
        }
        if !kept { free(pointer) }
    }
}
