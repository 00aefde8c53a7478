internal import CCurl

/// Facts about the libcurl jobrun is linked with. The transfer engine comes with `jobrun apply`.
public enum CurlLibrary {
    /// libcurl's version, e.g. `7.88.1`.
    public static var version: String {
        guard let info = jobrun_version_info(), let v = info.pointee.version else { return "unknown" }
        return String(cString: v)
    }

    /// The TLS backend libcurl was built with, e.g. `OpenSSL/3.0.17`.
    public static var tlsBackend: String {
        guard let info = jobrun_version_info(), let v = info.pointee.ssl_version else { return "none" }
        return String(cString: v)
    }

    /// Whether libcurl can speak HTTP/2.
    public static var supportsHTTP2: Bool {
        guard let info = jobrun_version_info() else { return false }
        return info.pointee.features & CURL_VERSION_HTTP2 != 0
    }
}
