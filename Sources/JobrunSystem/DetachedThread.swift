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
    /// `background`: the thread runs under `SCHED_BATCH` (Linux only, where a policy is a
    /// thread's): for work that another thread of the process hands over and takes back in its
    /// own time. Woken on the core of the thread that hands it work, it waits for that thread's
    /// turn to end rather than preempting it; it keeps its full share of the CPU (a lower
    /// priority would let other work starve it, and the run with it).
    public static func start(name: String, background: Bool = false, _ body: @escaping @Sendable () -> Void) -> Int32? {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, Self.stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let argument = Unmanaged.passRetained(Body(name: String(decoding: name.utf8.prefix(15), as: UTF8.self), isBackground: background, run: body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        let status = pthread_create(
            &thread, &attributes,
            { raw in
                DetachedThread.enter(raw)
                return nil
            }, argument)
        #else
        var thread = pthread_t()
        let status = pthread_create(
            &thread, &attributes,
            { raw in
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
        if body.isBackground {
            // Best effort: a thread left under the normal policy still does its work.
            var parameters = sched_param()
            _ = sched_setscheduler(0, Int32(JOBRUN_SCHED_BATCH), &parameters)
        }
        #endif
        body.run()
    }
}
