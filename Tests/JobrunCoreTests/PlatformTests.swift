import Dispatch
import JobrunCore
import JobrunSystem
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The small stand-ins for Foundation API that the binary does without (it links only
/// FoundationEssentials).
@Suite struct PlatformTests {
    @Test func trimmingASCIIRemovesOnlyTheGivenBytesAtTheEnds() {
        #expect(" \t value with  inner space \t ".trimmingASCII() == "value with  inner space")
        #expect("\r\nline\r\n".trimmingASCII([0x0D, 0x0A]) == "line")
        #expect("\r\nline\r\n".trimmingASCII() == "\r\nline\r\n")
        #expect("   ".trimmingASCII() == "")
        #expect("".trimmingASCII() == "")
        #expect(" héllo ".trimmingASCII() == "héllo")
        #expect("  a: b ".split(separator: ":")[1].trimmingASCII() == "b")
    }

    /// The body runs on a thread that carries the given name, cut to 15 bytes (what Linux
    /// keeps; `ps`, `top` and `perf` show it), on Linux and Darwin alike. The caller's thread,
    /// read after the body ran, does not carry it: the body was not run on the caller's thread.
    @Test func aDetachedThreadRunsItsBodyOnANamedThread() {
        let ran = DispatchSemaphore(value: 0)
        let bodyName = Mutex<String?>(nil)
        let failure = DetachedThread.start(name: "jobrun-test-thread-long-name") {
            bodyName.withLock { $0 = Self.currentThreadName() }
            ran.signal()
        }
        #expect(failure == nil)
        #expect(ran.wait(timeout: .now() + .seconds(10)) == .success, "the thread's body did not run")
        let body = bodyName.withLock { $0 }
        #expect(body == "jobrun-test-thr")
        #expect(Self.currentThreadName() != body)
    }

    #if os(Linux)
    /// A background thread runs under SCHED_BATCH at the caller's priority, and only it: the
    /// caller's thread and a thread started without `background` keep the normal policy.
    @Test func aBackgroundThreadRunsUnderTheBatchPolicy() {
        let callers = (policy: sched_getscheduler(0), nice: getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        func seen(background: Bool) -> (policy: Int32, nice: Int32)? {
            let ran = DispatchSemaphore(value: 0)
            let seen = Mutex<(policy: Int32, nice: Int32)?>(nil)
            let failure = DetachedThread.start(name: "jobrun-test-batch", background: background) {
                seen.withLock { $0 = (sched_getscheduler(0), getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)) }
                ran.signal()
            }
            #expect(failure == nil)
            #expect(ran.wait(timeout: .now() + .seconds(10)) == .success, "the thread's body did not run")
            return seen.withLock { $0 }
        }
        let batch: Int32 = 3  // SCHED_BATCH
        #expect(callers.policy != batch)
        let background = seen(background: true)
        #expect(background?.policy == batch && background?.nice == callers.nice)
        let normal = seen(background: false)
        #expect(normal?.policy == callers.policy && normal?.nice == callers.nice)
        #expect(sched_getscheduler(0) == callers.policy)
    }
    #endif

    private static func currentThreadName() -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        #if os(Linux)
        // Glibc's module does not export the GNU pthread_getname_np; the kernel has the name.
        let fd = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "?" }
        defer { close(fd) }
        guard read(fd, &buffer, buffer.count - 1) > 0 else { return "?" }
        #else
        guard pthread_getname_np(pthread_self(), &buffer, buffer.count) == 0 else { return "?" }
        #endif
        return String(decoding: buffer.prefix { $0 != 0 && $0 != 0x0A }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
