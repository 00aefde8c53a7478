internal import CCurl

/// Facts about the libcurl jobrun loads (``CurlAPI``), asked after `curl_global_init`. The
/// transfer engine comes with `jobrun apply`.
public enum CurlLibrary {
    /// libcurl's version, e.g. `7.88.1`, or why it cannot be loaded.
    public static var version: String {
        if case .failure(let error) = CurlGlobal.initialized { return "unavailable: \(error)" }
        guard let v = info?.pointee.version else { return "unknown" }
        return String(cString: v)
    }

    /// The TLS backend libcurl was built with, e.g. `OpenSSL/3.0.17`.
    public static var tlsBackend: String {
        guard let v = info?.pointee.ssl_version else { return "none" }
        return String(cString: v)
    }

    /// Whether libcurl can speak HTTP/2.
    public static var supportsHTTP2: Bool {
        guard let info else { return false }
        return info.pointee.features & CURL_VERSION_HTTP2 != 0
    }

    /// `curl_version_info` of the loaded, initialized libcurl; `nil` when it cannot be loaded.
    private static var info: UnsafeMutablePointer<curl_version_info_data>? {
        guard case .success(let api) = CurlGlobal.initialized else { return nil }
        return api.versionInfo(jobrun_curl_version_now())
    }
}
