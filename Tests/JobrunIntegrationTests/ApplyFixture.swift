import Foundation
import JobrunTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `jobrun apply` test: its own fault server and scratch folder (manifests, `mirror/`,
/// reports), jobrun run in that folder with proxies and output-changing variables removed.
/// The `Apply*Tests` suites are the issue's rules, one test (at least) per rule.
struct ApplyFixture {
    let server: FaultServer
    let directory: TemporaryDirectory

    init(_ options: FaultServer.Options = FaultServer.Options()) throws {
        directory = try TemporaryDirectory(prefix: "jobrun-apply")
        do {
            server = try FaultServer(options)
        } catch {
            directory.remove()
            throw error
        }
    }

    init(secondPort: Bool = false, tls: Bool = false) throws {
        try self.init(FaultServer.Options(isTLSEnabled: tls, hasSecondPort: secondPort))
    }

    func finish() {
        server.stop()
        directory.remove()
    }

    /// A proxy from the environment would take loopback requests elsewhere.
    static let proxyVariables: Set<String> = [
        "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
    ]

    static func removedEnvironment(keeping environment: [String: String]) -> Set<String> {
        Harness.scrubbedEnvironment.union(proxyVariables).subtracting(environment.keys)
    }

    /// `path` on the primary port.
    func url(_ path: String) -> String { server.url(path) }

    /// Writes a manifest into the scratch folder (`site.yaml` unless named).
    @discardableResult
    func write(manifest: String, to name: String = "site.yaml") throws -> String {
        try directory.write(file: name, contents: manifest)
    }

    /// `jobrun <arguments>` in the scratch folder; a timeout or a signal is a test failure.
    func run(
        _ arguments: [String], environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> RunResult {
        try await Harness.run(
            arguments, in: directory.path, environment: environment, alsoRemoving: Self.proxyVariables, sourceLocation: sourceLocation)
    }

    /// `jobrun apply <manifest> <extra…>`.
    func apply(
        _ extra: [String] = [], manifest: String = "site.yaml", environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> RunResult {
        try await run(["apply", manifest] + extra, environment: environment, sourceLocation: sourceLocation)
    }

    /// `jobrun apply --json`, decoded (the run's stdout must be the JSON document).
    func applyJSON(
        _ extra: [String] = [], manifest: String = "site.yaml", environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (result: RunResult, report: ApplyJSON) {
        let result = try await apply(["--json"] + extra, manifest: manifest, environment: environment, sourceLocation: sourceLocation)
        let report = try ApplyJSON.decode(result.stdout, context: "\(result)")
        return (result, report)
    }

    /// `jobrun apply` in the background (signal and kill tests).
    func startApply(_ extra: [String] = [], manifest: String = "site.yaml") throws -> BackgroundProcess {
        try Harness.jobrun().start(
            ["apply", manifest] + extra, environment: Harness.quietProgress, removingEnvironment: Self.removedEnvironment(keeping: Harness.quietProgress),
            workingDirectory: directory.path)
    }

    /// The requests jobrun sent (not a test's `/_digest` questions), all of them logged
    /// (``FaultServer/settledRequests()``).
    func sentRequests() async throws -> [LoggedRequest] {
        try await server.settledRequests().filter { !$0.path.hasPrefix("/_digest/") }
    }

    /// `jobrun verify <manifest>` exits 0: every file is there and matches.
    func expectVerified(manifest: String = "site.yaml", sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let result = try await run(["verify", manifest], sourceLocation: sourceLocation)
        #expect(result.status == 0, "verify after apply:\n\(result)", sourceLocation: sourceLocation)
    }

    /// The size of a file below the scratch folder, `nil` when there is none (links not followed).
    func size(of relativePath: String) -> Int? {
        var st = stat()
        guard lstat(directory.path(relativePath), &st) == 0 else { return nil }
        return Int(st.st_size)
    }

    /// The requests logged for `path` (without query), after waiting until there are `count`.
    func requests(_ path: String, count: Int, timeout: Duration = .seconds(10)) async throws -> [LoggedRequest] {
        let wanted = path.hasPrefix("/") ? path : "/" + path
        var matching: [LoggedRequest] = []
        try await server.waitForRequests(timeout: timeout) { log in
            matching = log.filter { $0.pathWithoutQuery == wanted }
            return matching.count >= count
        }
        return matching
    }

    /// The server's lowercase hex digest of what `path` serves at representation `version`.
    /// With `corrupted`, of the bytes the `wrong_bytes=1` fault serves instead.
    func digest(_ path: String, version: Int = 0, algorithm: String = "sha256", corrupted: Bool = false) throws -> String {
        let body = try HTTPGet.body(port: server.port, target: "/_digest\(path)?alg=\(algorithm)&version=\(version)\(corrupted ? "&wrong_bytes=1" : "")")
        return body.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The SHA-256 of a file below the scratch folder.
    func sha256(ofFile relativePath: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory.path(relativePath)))
        return PortableSHA256.hex(of: [UInt8](data))
    }
}

/// The `--json` document of `jobrun apply`. Decoding checks that every documented field is there.
struct ApplyJSON: Decodable {
    struct Summary: Decodable {
        var fetched: Int
        var resumed: Int
        var repaired: Int
        var bytesTransferred: Int64
        var upToDate: Int
        var failed: Int
        var skipped: Int
        var deferred: Int
        var sizeOnly: Int
        var unverified: Int
        var revalidated: Int
        var unchanged: Int
        var replaced: Int
        var pruned: Int
        var success: Bool
        var interruptedBySignal: Int?
        var stopReason: String?
        var remaining: Remaining?
        var elapsedSeconds: Double
        var offlineSeconds: Double

        struct Remaining: Decodable, Equatable {
            var cutInFlight: Int
            var partialsKept: Int
            var partialsDiscarded: Int
            var notStarted: Int
            var notStartedBytes: Int64
            var notStartedUnsized: Int
        }
    }

    struct Resource: Decodable {
        var id: String
        var complete: Bool
        var deferral: Deferral?
        var slices: [Slice]
    }

    struct Deferral: Decodable {
        var reasons: [String]
        var details: [String]
        var message: String
        var until: String?
        var untilMs: Int64?
    }

    struct Slice: Decodable {
        var path: String
        var identity: String
        var url: String
        var origin: String
        var failedAt: [FailedAt]
        var file: String
        var status: String
        var repairedBecause: String?
        var revalidation: String?
        var bytesTransferred: Int64
        var size: Int64?
        var attempts: Int
        var digests: [String: String]
        var integrity: String
        var lengthDeclared: Bool?
        var computedDigests: [String: String]
        var seconds: Double
        var error: Failure?
        var skipReason: String?
        var httpVersion: String?
        var partialDiscarded: String?
    }

    struct FailedAt: Decodable {
        var url: String
        var error: Failure
    }

    struct Failure: Decodable {
        var type: String
        var message: String
        var actualDigests: [String: String]?
        var httpStatus: Int?
    }

    struct Origin: Decodable {
        struct LimitPoint: Decodable {
            var atMs: Int64
            var limit: Int
        }
        var origin: String
        var requests: Int
        var connections: Int
        var inFlightMean: Double
        var inFlightPeak: Int
        var streams: Int
        var adaptive: Bool
        var bytes: Int64
        var failures: Int
        var wrongAnswers: Int
        var quarantined: Bool
        var limitPath: [LimitPoint]
    }

    struct Prune: Decodable {
        struct File: Decodable {
            var resource: String
            var path: String
            var file: String
            var foreign: Bool
            var trashPath: String?
            var error: String?
        }

        var state: String
        var reason: String?
        var maxDelete: String
        var resources: [String]
        var trash: String?
        var pruned: Int
        var failed: Int
        var files: [File]
    }

    var formatVersion: Int
    var jobrunVersion: String
    var summary: Summary
    var resources: [Resource]
    var prune: Prune?
    var publications: [Publication]
    var origins: [Origin]

    struct Publication: Decodable {
        var resource: String
        var state: String
        var reason: String?
        var folder: String
        var stage: String
        var retired: String?
        var warning: String?
        var keptUntil: String?
    }

    static func decode(_ text: String, context: @autoclosure () -> String) throws -> ApplyJSON {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(ApplyJSON.self, from: Data(text.utf8))
        } catch {
            Issue.record("not the apply JSON document: \(error)\n\(context())")
            throw error
        }
    }

    /// The record of slice `path` of resource `id`.
    func slice(_ id: String, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Slice {
        try #require(
            resources.first { $0.id == id }?.slices.first { $0.path == path }, "no record for \(id)/\(path)",
            sourceLocation: sourceLocation)
    }
}

extension FaultServer {
    /// The log once every response that ended before this call is in it: a response's line is
    /// written after its last byte, so a client that got everything and exited can be ahead of
    /// it. A request of this call's own goes through the server and is waited for (these are left out).
    func settledRequests() async throws -> [LoggedRequest] {
        let sentinel = "/gen/1/sentinel-\(UUID().uuidString)"
        _ = try HTTPGet.body(port: port, target: sentinel)
        let log = try await waitForRequests { $0.contains { $0.pathWithoutQuery == sentinel } }
        return log.filter { !$0.pathWithoutQuery.hasPrefix("/gen/1/sentinel-") }
    }
}

/// A blocking HTTP/1.0 GET on 127.0.0.1, for the server's `/_digest` route (no client library
/// needed, and no proxy in the way).
enum HTTPGet {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    #if canImport(Glibc)
    static let streamSocket = Int32(SOCK_STREAM.rawValue)
    #else
    static let streamSocket = SOCK_STREAM
    #endif

    static func body(port: Int, target: String) throws -> String {
        String(decoding: try bytes(port: port, target: target), as: UTF8.self)
    }

    /// The body of a `200` response to `GET target`.
    static func bytes(port: Int, target: String) throws -> [UInt8] {
        let fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard connectLoopback(fd, port: port) == 0 else { throw Failure(description: "connect: \(String(cString: strerror(errno)))") }
        let request = Array("GET \(target) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            sent += n
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            response += buffer[0..<n]
        }
        let separator = Array("\r\n\r\n".utf8)
        let head = String(decoding: response.prefix(12), as: UTF8.self)
        guard head.hasPrefix("HTTP/1.") && head.dropFirst(9).hasPrefix("200"),
            let end = (0...max(0, response.count - separator.count)).first(where: { response[$0..<min(response.count, $0 + 4)].elementsEqual(separator) })
        else {
            throw Failure(description: "GET \(target): \(String(decoding: response.prefix(300), as: UTF8.self))")
        }
        return Array(response[(end + 4)...])
    }

    /// A TCP port on 127.0.0.1 that nothing listens on: bound, then closed (a port for a server
    /// to be started on; another test may take it meanwhile).
    static func closedPort() throws -> Int {
        let (fd, port) = try boundSocket()
        close(fd)
        return port
    }

    /// A TCP port on 127.0.0.1 that refuses connections for as long as the returned descriptor
    /// is open: bound and never listening, so no other test can take it.
    static func refusingPort() throws -> (fd: Int32, port: Int) {
        try boundSocket()
    }

    /// A TCP socket bound to 127.0.0.1 on a port the kernel picks: its descriptor and that port.
    static func boundSocket() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            let error = errno
            close(fd)
            throw Failure(description: "bind: \(String(cString: strerror(error)))")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// `connect(2)` of `fd` to 127.0.0.1:`port`; its result.
    static func connectLoopback(_ fd: Int32, port: Int) -> Int32 {
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func acceptsConnections(port: Int) -> Bool {
        let fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return connectLoopback(fd, port: port) == 0
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// Overlap of request intervals in the server's log.
enum RequestOverlap {
    /// The largest number of requests in progress at once, by the server's clock (headers read →
    /// response ended). The server sees each request inside the client's own interval, so this
    /// never exceeds the client's concurrency.
    static func maximum(_ requests: [LoggedRequest]) -> Int {
        // At equal times an end comes before a start: touching intervals do not overlap.
        let events = requests.flatMap { [($0.time, 1), ($0.endTime, -1)] }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        var current = 0
        var peak = 0
        for (_, delta) in events {
            current += delta
            peak = max(peak, current)
        }
        return peak
    }
}
