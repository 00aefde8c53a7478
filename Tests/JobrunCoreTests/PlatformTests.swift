import Dispatch
import JobrunCore
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

    @Test func aDetachedThreadRunsItsBodyOnAnotherThread() {
        let ran = DispatchSemaphore(value: 0)
        let onAnotherThread = Mutex<Bool?>(nil)
        #if os(Linux)
        let caller = pthread_self()  // an integer on Linux
        #endif
        let failure = DetachedThread.start(name: "jobrun-test-thread-long-name") {
            #if os(Linux)
            onAnotherThread.withLock { $0 = pthread_equal(pthread_self(), caller) == 0 }
            #else
            onAnotherThread.withLock { $0 = true }
            #endif
            ran.signal()
        }
        #expect(failure == nil)
        #expect(ran.wait(timeout: .now() + .seconds(10)) == .success, "the thread's body did not run")
        #expect(onAnotherThread.withLock { $0 } == true)
    }
}
