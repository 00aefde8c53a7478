import Foundation

/// One request as ``FaultServer`` received and answered it (a line of its request log).
///
/// The line is written when the response has ended (completely, by a fault, or because the client
/// went away), so a request the server is still answering — a `stall_at` or a `drip` in progress —
/// is not in the log yet.
public struct LoggedRequest: Sendable, CustomStringConvertible {
    /// When the request's headers had been read, in seconds on the server's monotonic clock:
    /// compare only with other entries (`b.time - a.endTime` is the gap between two attempts).
    public var time: Double
    /// When the response's last write began (its last body bytes, a chunked body's terminator, or
    /// the headers of a response without a body), on the same clock: never after the client could
    /// see the response end, so a request sent after that has a later ``time``. A stall or a reset
    /// comes after it; a client that hung up before the headers leaves the moment it was noticed.
    public var endTime: Double
    /// The listening port that received it (``FaultServer/port``, `secondPort` or `tlsPort`).
    public var port: Int
    /// `http` or `https`.
    public var scheme: String
    public var method: String
    /// The request target as sent, query included.
    public var path: String
    /// Every header in the order received, names as spelled by the client, duplicates kept.
    public var headers: [(name: String, value: String)]
    /// Numbers the server's accepted connections from 1; equal IDs mean a reused connection.
    public var connectionID: Int
    /// 1 for the first request on its connection, 2 for the next, ….
    public var requestInConnection: Int
    /// This request's number among all requests for the same path without query (the counter
    /// that `n=`, `from=` and `change_after=` use); `nil` for `/_digest/…`.
    public var requestNumber: Int?
    /// The status sent; 0 if none was.
    public var status: Int
    /// Body bytes written to the socket.
    public var bytesSent: Int
    /// The client closed the connection before the response was complete.
    public var clientDisconnected: Bool
    /// The response headers as sent (Server and Date included).
    public var responseHeaders: [(name: String, value: String)]
    /// The fault chaos mode drew for this request (`truncate`, `etag`, …); `nil` when none.
    public var chaos: String?
    /// That fault as `/fault/` options (`truncate_at=1234`): the prefix that replays it.
    public var chaosSpec: String?

    /// `path` without its query string.
    public var pathWithoutQuery: String {
        path.firstIndex(of: "?").map { String(path[..<$0]) } ?? path
    }

    /// The first value of request header `name` (case-insensitive).
    public func header(named name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The first value of response header `name` (case-insensitive).
    public func responseHeader(named name: String) -> String? {
        responseHeaders.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var description: String {
        let sent = headers.map { "\($0.name): \($0.value)" }.joined(separator: "; ")
        return "\(method) \(scheme)://:\(port)\(path) [conn \(connectionID)#\(requestInConnection)] → \(status), "
            + "\(bytesSent) B\(clientDisconnected ? ", client went away" : "")\(chaosSpec.map { ", chaos \($0)" } ?? "") {\(sent)}"
    }
}

/// A connection the server reset before reading a request (``FaultServer/Options/refusePercent``):
/// a line of its request log that is not a request.
public struct RefusedConnection: Sendable, CustomStringConvertible {
    /// When it was accepted, on the server's monotonic clock (as ``LoggedRequest/time``).
    public var time: Double
    /// When it was reset: once the client's first bytes had arrived (its request, unread), or 2 s.
    public var endTime: Double
    /// The listening port that accepted it.
    public var port: Int
    /// `http` or `https`.
    public var scheme: String
    /// Its number among the server's accepted connections (as ``LoggedRequest/connectionID``):
    /// the refusal draw is a function of this number and the seed.
    public var connectionID: Int

    public var description: String { "refused \(scheme)://:\(port) [conn \(connectionID)]" }
}

extension FaultServer {
    /// Every request logged so far, in the order they arrived (by ``LoggedRequest/time``; the
    /// file itself is in the order the responses ended, which can differ: a client may follow a
    /// redirect before the server has finished logging the 302). Refused connections are not
    /// requests: they are in ``refusedConnections()``.
    /// - Throws: when the log cannot be read or a line is not valid JSON.
    public func requests() throws(FaultServerError) -> [LoggedRequest] {
        let requests = try logLines().compactMap { line -> LoggedRequest? in
            if case .request(let request) = line { return request.request }
            return nil
        }
        // Stable, so entries with equal times keep the file's order.
        return requests.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }

    /// The connections reset before a request (``Options/refusePercent``), by connection number.
    /// - Throws: when the log cannot be read or a line is not valid JSON.
    public func refusedConnections() throws(FaultServerError) -> [RefusedConnection] {
        try logLines().compactMap { line -> RefusedConnection? in
            if case .refused(let refused) = line { return refused.refusedConnection }
            return nil
        }.sorted { $0.connectionID < $1.connectionID }
    }

    /// The complete lines of the log, decoded.
    private func logLines() throws(FaultServerError) -> [LogLine] {
        guard let data = FileManager.default.contents(atPath: logPath) else {
            if !FileManager.default.fileExists(atPath: logPath) { return [] }
            throw FaultServerError(message: "cannot read \(logPath)")
        }
        var decoded: [LogLine] = []
        // Only complete lines: the server may be writing the next one right now.
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        lines.removeLast()
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        for line in lines where !line.isEmpty {
            do {
                decoded.append(try decoder.decode(LogLine.self, from: Data(line)))
            } catch {
                throw FaultServerError(
                    message: "\(logPath): bad line \(String(decoding: line, as: UTF8.self)): \(error)")
            }
        }
        return decoded
    }

    /// The logged requests whose path, without query, is `path` (leading `/` optional).
    public func requests(path: String) throws(FaultServerError) -> [LoggedRequest] {
        let wanted = path.hasPrefix("/") ? path : "/" + path
        return try requests().filter { $0.pathWithoutQuery == wanted }
    }

    /// Polls the log until `condition` holds for it and returns that log.
    /// - Throws: ``FaultServerError`` with the whole log when `timeout` passes first.
    @discardableResult
    public func waitForRequests(
        timeout: Duration = .seconds(10), until condition: ([LoggedRequest]) -> Bool
    ) async throws -> [LoggedRequest] {
        var latest: [LoggedRequest] = []
        let held = try await Poll.until(timeout: timeout) {
            latest = try requests()
            return condition(latest)
        }
        guard held else {
            throw FaultServerError(
                message: "the request log did not reach the expected state within \(timeout); it has "
                    + "\(latest.count) entries:\n" + latest.map { "  \($0)" }.joined(separator: "\n"))
        }
        return latest
    }
}

/// A log line as the server writes it: a request, or a connection refused before one
/// (`"refused": true`).
private enum LogLine: Decodable {
    case request(RequestLine)
    case refused(RefusedLine)

    private enum CodingKeys: String, CodingKey { case refused }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if try container.decodeIfPresent(Bool.self, forKey: .refused) == true {
            self = .refused(try RefusedLine(from: decoder))
        } else {
            self = .request(try RequestLine(from: decoder))
        }
    }
}

/// A refused connection's line (snake_case keys, converted by the decoder).
private struct RefusedLine: Decodable {
    var time: Double
    var endTime: Double
    var port: Int
    var scheme: String
    var connection: Int

    var refusedConnection: RefusedConnection {
        RefusedConnection(time: time, endTime: endTime, port: port, scheme: scheme, connectionID: connection)
    }
}

/// A request's line (snake_case keys, converted by the decoder).
private struct RequestLine: Decodable {
    var time: Double
    var endTime: Double
    var port: Int
    var scheme: String
    var method: String
    var path: String
    var headers: [[String]]
    var connection: Int
    var requestInConnection: Int
    var requestNumber: Int?
    var status: Int?
    var bytesSent: Int
    var clientDisconnected: Bool
    var responseHeaders: [[String]]
    var chaos: String?
    var chaosSpec: String?

    var request: LoggedRequest {
        LoggedRequest(
            time: time, endTime: endTime, port: port, scheme: scheme, method: method, path: path,
            headers: Self.pairs(headers), connectionID: connection, requestInConnection: requestInConnection,
            requestNumber: requestNumber, status: status ?? 0, bytesSent: bytesSent,
            clientDisconnected: clientDisconnected, responseHeaders: Self.pairs(responseHeaders), chaos: chaos,
            chaosSpec: chaosSpec)
    }

    private static func pairs(_ lists: [[String]]) -> [(name: String, value: String)] {
        lists.compactMap { $0.count == 2 ? (name: $0[0], value: $0[1]) : nil }
    }
}
