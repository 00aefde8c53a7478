import JobrunCore
/// libcurl's result codes as jobrun can receive them on an HTTP(S) or file transfer, each in the
/// user's terms with its kind (retried or not). Classified by code, never by message text; the
/// error buffer's detail follows the summary when it says more. Numbers, not `CURLcode` names,
/// so the table also covers codes newer than the headers built against.
enum CurlResult {
    /// libcurl's limit on one response header line (`CURL_MAX_HTTP_HEADER`).
    static let maxHeaderLine = 100 << 10

    /// `code` as a failure. `headersComplete`: the response's head had been delivered, so an
    /// out-of-memory code is really about memory, not a header line over libcurl's limit.
    /// `hasConnected`: a connection was made (or reused), so a timeout is not the connect's, nor an
    /// unsupported protocol the URL's. `osErrno`: the system's error of the last connect
    /// (`CURLINFO_OS_ERRNO`), which says why a connection could not be made.
    static func failure(code: Int32, detail: String, headersComplete: Bool, hasConnected: Bool = true, osErrno: Int32 = 0) -> TransferResult.Failure {
        func with(_ summary: String) -> String {
            let d = detail.trimmingASCII([0x20, 0x0A, 0x0D])
            return d.isEmpty ? summary : "\(summary): \(d)"
        }
        switch code {
        // Once connected, what libcurl does not support is the reply: HTTP/0.9, which has no head.
        case 1 where hasConnected: return .protocolRefused(with("the server's reply is not HTTP/1.0 or later (an HTTP/0.9 reply, or not HTTP)"))
        case 1: return .protocolRefused(with("the URL's scheme is not allowed (http and https only; file where asked for)"))
        case 3: return .other(code: code, message: with("the URL is malformed"))
        case 5: return .resolve(with("the proxy's host name did not resolve"))
        case 6: return .resolve(with("the host name did not resolve"))
        case 7: return .connect(with(connectFailure(osErrno)))
        case 8: return .network(with("the server's reply is not valid HTTP"))
        case 16: return .network(with("HTTP/2 protocol error"))
        case 18: return .truncated(with("the connection ended before the whole body arrived"))
        case 23: return .other(code: code, message: with("the body could not be stored"))
        case 26: return .other(code: code, message: with("the local file could not be read"))
        case 27 where !headersComplete, 100:
            return .other(code: code, message: "response headers larger than libcurl accepts (\(maxHeaderLine / 1024) KiB per header line)")
        case 27: return .other(code: code, message: "out of memory")
        // No connection within the connect timeout: the host is as unreachable as one that refuses.
        case 28 where !hasConnected && !headersComplete: return .connectTimeout(with("timed out connecting"))
        case 28: return .timeout(with("timed out"))
        case 35: return .tls(with("the TLS handshake failed"))
        case 37: return .other(code: code, message: with("the local file could not be read"))
        case 52: return .network("the server closed the connection without replying")
        case 55: return .network(with("sending the request failed"))
        case 56: return .network(with("the connection broke while receiving"))
        case 58, 98: return .tls(with("the client certificate could not be used"))
        case 59: return .tls(with("no TLS cipher in common with the server"))
        case 60: return .tls(with("the server's certificate did not verify"))
        case 61: return .other(code: code, message: with("the body's content encoding could not be decoded"))
        case 63: return .other(code: code, message: with("the file is larger than allowed"))
        case 77: return .tls(with("the CA certificates could not be read"))
        case 80: return .tls(with("the TLS connection did not close cleanly"))
        case 82, 83, 90, 91: return .tls(with("the server's certificate was refused"))
        case 53, 54, 64, 66: return .tls(with("TLS could not be set up"))
        case 92: return .network(with("the server reset the HTTP/2 stream"))
        case 95, 96: return .network(with("HTTP/3 error"))
        case 97: return .connect(with("the proxy failed"))
        case 45: return .connect(with("the network interface could not be used"))
        default: return .other(code: code, message: with("libcurl error \(code)"))
        }
    }

    /// Why no connection could be made, by the system's error.
    static func connectFailure(_ osErrno: Int32) -> String {
        switch osErrno {
        case ECONNREFUSED: "the connection was refused"
        case EHOSTUNREACH: "the host is unreachable"
        case ENETUNREACH: "the network is unreachable"
        case ETIMEDOUT: "timed out connecting"
        case EACCES, EPERM: "the connection was not permitted"
        default: "could not connect"
        }
    }
}
