import JobrunCore
import Testing
@testable import JobrunFetch

@Suite struct CurlResultTests {
    /// Every code jobrun can receive maps to a kind and a sentence in the user's terms.
    @Test func codesByKind() {
        #expect(
            CurlResult.failure(code: 6, detail: "Could not resolve host: nope", headersComplete: false)
                == .resolve("the host name did not resolve: Could not resolve host: nope"))
        #expect(CurlResult.failure(code: 7, detail: "", headersComplete: false) == .connect("could not connect"))
        #expect(CurlResult.failure(code: 18, detail: "", headersComplete: true) == .truncated("the connection ended before the whole body arrived"))
        #expect(CurlResult.failure(code: 28, detail: "", headersComplete: false) == .timeout("timed out"))
        // No connection was made: the connect timed out, which the offline pause counts as unreachable.
        #expect(
            CurlResult.failure(code: 28, detail: "Connection timed out after 10001 milliseconds", headersComplete: false, hasConnected: false)
                == .connectTimeout("timed out connecting: Connection timed out after 10001 milliseconds"))
        #expect(
            CurlResult.failure(code: 52, detail: "Empty reply from server", headersComplete: false)
                == .network("the server closed the connection without replying"))
        #expect(
            CurlResult.failure(code: 56, detail: "Recv failure: Connection reset by peer", headersComplete: true)
                == .network("the connection broke while receiving: Recv failure: Connection reset by peer"))
        #expect(CurlResult.failure(code: 60, detail: "", headersComplete: false) == .tls("the server's certificate did not verify"))
        #expect(
            CurlResult.failure(code: 1, detail: "", headersComplete: false, hasConnected: false)
                == .protocolRefused("the URL's scheme is not allowed (http and https only; file where asked for)"))
        // Connected: what is not supported is the reply.
        #expect(
            CurlResult.failure(code: 1, detail: "Received HTTP/0.9 when not allowed", headersComplete: false)
                == .protocolRefused("the server's reply is not HTTP/1.0 or later (an HTTP/0.9 reply, or not HTTP): Received HTTP/0.9 when not allowed"))
        #expect(CurlResult.failure(code: 1, detail: "", headersComplete: false).isTransient == false)
        // A connection that could not be made says why, by the system's error.
        #expect(CurlResult.failure(code: 7, detail: "", headersComplete: false, osErrno: ECONNREFUSED) == .connect("the connection was refused"))
        #expect(CurlResult.failure(code: 7, detail: "", headersComplete: false, osErrno: EHOSTUNREACH) == .connect("the host is unreachable"))
        #expect(CurlResult.failure(code: 4242, detail: "", headersComplete: false) == .other(code: 4242, message: "libcurl error 4242"))
    }

    /// libcurl 7.88 reports a header line over its limit as "out of memory" (27); newer
    /// versions have a code of their own (100). Before the head was complete, 27 means that.
    @Test func oversizedHeadersAreNotCalledOutOfMemory() {
        let expected = TransferResult.Failure.other(code: 27, message: "response headers larger than libcurl accepts (100 KiB per header line)")
        #expect(CurlResult.failure(code: 27, detail: "Out of memory", headersComplete: false) == expected)
        #expect(CurlResult.failure(code: 27, detail: "Out of memory", headersComplete: true) == .other(code: 27, message: "out of memory"))
        #expect(
            CurlResult.failure(code: 100, detail: "", headersComplete: false)
                == .other(code: 100, message: "response headers larger than libcurl accepts (100 KiB per header line)"))
    }
}
