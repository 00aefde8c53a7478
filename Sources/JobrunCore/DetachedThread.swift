#if canImport(Glibc)
import Glibc
internal import CLinux
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX thread that runs a closure and ends; nobody joins it (its owner waits on a signal of
/// its own). Foundation's `Thread` would pull the whole of Foundation (and ICU) into the binary,
/// and its loading into every start.
public enum DetachedThread {
    private final class Body {
        let name: String
        let isBackground: Bool
        let run: @Sendable () -> Void
        init(name: String, isBackground: Bool, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.isBackground = isBackground
            self.run = run
        }
    }

    /// The stack of every such thread: the engine and store loops need little.
    static let stackSize = 1 << 20

    /// Starts `body` on a new thread called `name` (at most 15 bytes are kept) with a stack of
    /// ``stackSize`` bytes. Returns the `pthread_create` error, or `nil` when the thread runs.
    ///
    /// `background`: the thread runs at the lowest priority (nice 19; Linux only, where a nice
    /// value is a thread's). For work that another thread of the process hands over and waits
    /// for in its own time: when such a thread shares a core with the thread that hands it work,
    /// it yields rather than preempting it, and it still runs whenever that thread waits.
    public static func start(name: String, background: Bool = false, _ body: @escaping @Sendable () -> Void) -> Int32? {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, Self.stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let argument = Unmanaged.passRetained(Body(name: String(decoding: name.utf8.prefix(15), as: UTF8.self), isBackground: background, run: body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        let status = pthread_create(&thread, &attributes, { raw in
            DetachedThread.enter(raw)
            return nil
        }, argument)
        #else
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { raw in
            if let raw { DetachedThread.enter(raw) }
            return nil
        }, argument)
        #endif
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(argument).release()
            return status
        }
        return nil
    }

    /// On the new thread: names it (for ps, top, perf and debuggers), then runs the body.
    private static func enter(_ raw: UnsafeMutableRawPointer) {
        let body = Unmanaged<Body>.fromOpaque(raw).takeRetainedValue()
        #if canImport(Darwin)
        pthread_setname_np(body.name)
        #elseif canImport(Glibc)
        pthread_setname_np(pthread_self(), body.name)
        // Best effort: a thread left at its priority still does its work.
        if body.isBackground { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19) }
        #endif
        body.run()
    }
}
