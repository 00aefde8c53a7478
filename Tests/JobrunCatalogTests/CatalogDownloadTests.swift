import JobrunCore
import JobrunManifest
import JobrunTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import JobrunCatalog

/// A catalog's download and the run's deadline, on made-up instants: no attempt starts past it,
/// and no backoff waits beyond it.
@Suite struct CatalogDownloadTests {
    /// A loopback port nothing listens on (one the system gave and that was closed again): each
    /// attempt fails at once, transiently.
    static let closedPort: Int = {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }()

    static var url: String { "http://127.0.0.1:\(closedPort)/SHA256SUMS" }

    static func download(deadline: ContinuousClock.Instant) -> CatalogDownload {
        var download = CatalogDownload(
            url: url, headers: [], limit: 1 << 20, timeouts: Timeouts(), retries: RetryPolicy(), caFile: nil)
        download.deadline = deadline
        return download
    }

    @Test func aDeadlineAlreadyPastStartsNoAttempt() {
        let start = ContinuousClock.now
        let slept = Mutex(0)
        let result = Self.download(deadline: start).fetch(now: { start + .seconds(1) }, sleep: { _ in slept.withLock { $0 += 1 } })
        guard case .failure(let error) = result else {
            Issue.record("fetched past the deadline")
            return
        }
        #expect(error.message == "the run's deadline came before '\(Self.url)' was fetched" && !error.isTransient)
        #expect(slept.withLock { $0 } == 0)
    }

    @Test func noBackoffWaitsBeyondTheDeadline() {
        let start = ContinuousClock.now
        let calls = Mutex(0)
        let slept = Mutex(0)
        // The first attempt starts in time; by the time it has failed the deadline is a second away,
        // closer than the backoff's shortest wait.
        let now: () -> ContinuousClock.Instant = {
            let n = calls.withLock { c in
                c += 1
                return c
            }
            return n == 1 ? start : start + .seconds(29)
        }
        var download = Self.download(deadline: start + .seconds(30))
        download.retries.backoff.initial = .seconds(5)
        download.retries.backoff.maximum = .seconds(5)
        let result = download.fetch(now: now, sleep: { _ in slept.withLock { $0 += 1 } })
        guard case .failure(let error) = result else {
            Issue.record("fetched from a port nothing listens on")
            return
        }
        #expect(error.message.hasPrefix("the run's deadline came before '\(Self.url)' was fetched (cannot fetch"), "\(error.message)")
        #expect(slept.withLock { $0 } == 0, "a backoff waited past the deadline")
    }
}
