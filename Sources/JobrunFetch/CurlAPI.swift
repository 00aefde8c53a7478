internal import CCurl
import JobrunCore

/// libcurl's entry points, looked up in the library loaded with `dlopen` — jobrun does not link
/// libcurl. Only `apply` (and `version`) load it, the first time they need it: `validate`,
/// `plan` and `verify` start without libcurl and the 28 libraries Debian's build of it pulls in
/// (GnuTLS, Kerberos, LDAP, libssh2, …; their cost is in docs/performance.md, "Start-up"), and
/// `apply` loads them on the thread that prepares the libraries while the main thread reads the
/// manifests (`ApplyRun.startPreparingLibraries`), instead of before `main`.
///
/// Immutable once made (`@unchecked Sendable`: C function pointers and the library handle).
final class CurlAPI: @unchecked Sendable {
    let globalInit: jobrun_curl_global_init_fn
    let versionInfo: jobrun_curl_version_info_fn
    let easyInit: jobrun_curl_easy_init_fn
    let easyCleanup: jobrun_curl_easy_cleanup_fn
    let easyStrerror: jobrun_curl_easy_strerror_fn
    let easyPause: jobrun_curl_easy_pause_fn
    let multiInit: jobrun_curl_multi_init_fn
    let multiCleanup: jobrun_curl_multi_cleanup_fn
    let multiAddHandle: jobrun_curl_multi_add_handle_fn
    let multiRemoveHandle: jobrun_curl_multi_remove_handle_fn
    let multiPerform: jobrun_curl_multi_perform_fn
    let multiPoll: jobrun_curl_multi_poll_fn
    let multiWakeup: jobrun_curl_multi_wakeup_fn
    let multiInfoRead: jobrun_curl_multi_info_read_fn
    let slistAppend: jobrun_curl_slist_append_fn
    let slistFreeAll: jobrun_curl_slist_free_all_fn
    /// The variadic ones, called through the shim's typed wrappers (`jobrun_easy_setopt_long`, …).
    let easySetopt: UnsafeMutableRawPointer
    let easyGetinfo: UnsafeMutableRawPointer
    let multiSetopt: UnsafeMutableRawPointer
    /// `version_num`: 0x075801 for 7.88.1.
    let versionNumber: UInt32

    /// The file names tried, in order: the soname of libcurl's ABI 4, which every libcurl since
    /// 7.16 has (Debian's `libcurl4` package; macOS ships it in /usr/lib).
    #if canImport(Darwin)
    static let libraryNames = ["libcurl.4.dylib"]
    #else
    static let libraryNames = ["libcurl.so.4"]
    #endif

    /// 7.85.0, as `version_num` encodes it: the first with `CURLOPT_PROTOCOLS_STR` and
    /// `CURLOPT_REDIR_PROTOCOLS_STR`, which every transfer sets.
    static let minimumVersion: UInt32 = 0x07_55_00

    /// What every failure to load ends with.
    static let requirement = "`apply` needs libcurl 7.85 or later"
    /// Added when no library could be opened at all.
    static let installHint = " (Debian and Ubuntu: apt install libcurl4)"

    /// libcurl, loaded once (by whichever thread asks first; the others wait for it).
    static let shared: Result<CurlAPI, EngineError> = load(from: libraryNames)

    /// Loads the first of `names` that `dlopen` opens, checks its version against
    /// `minimumVersion` and looks up every entry point in it. The error names each file tried
    /// with what `dlopen` said, or the file opened with its version or the entry point missing.
    static func load(from names: [String], minimumVersion: UInt32 = minimumVersion) -> Result<CurlAPI, EngineError> {
        var reasons: [String] = []
        for name in names {
            // Every import of libcurl and of the libraries it needs is bound now (Debian builds
            // them with BIND_NOW anyway), so a broken dependency fails here, before anything is
            // requested, not in the middle of a transfer. Local: libcurl's symbols do not join
            // the process's global namespace.
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                // glibc names the file it could not open, which is a dependency's when one is
                // missing: the name tried goes first unless the reason already mentions it.
                let reason = dlerror().map { String(cString: $0) } ?? "cannot be opened"
                reasons.append(reason.contains(name) ? reason : "\(name): \(reason)")
                continue
            }
            do {
                return .success(try CurlAPI(handle: handle, file: name, minimumVersion: minimumVersion))
            } catch {
                dlclose(handle)
                return .failure(EngineError("\(error); \(requirement)"))
            }
        }
        return .failure(EngineError("cannot load libcurl (\(reasons.joined(separator: "; "))); \(requirement)\(installHint)"))
    }

    /// The version first (a libcurl too old for jobrun is named as such, not by the first entry
    /// point it lacks), then every entry point.
    private init(handle: UnsafeMutableRawPointer, file: String, minimumVersion: UInt32) throws(EngineError) {
        func symbol(_ name: String) throws(EngineError) -> UnsafeMutableRawPointer {
            guard let p = dlsym(handle, name) else {
                throw EngineError("\(file) is not a usable libcurl: it has no \(name)")
            }
            return p
        }
        func function<F>(_ name: String, as type: F.Type) throws(EngineError) -> F {
            unsafeBitCast(try symbol(name), to: F.self)
        }
        versionInfo = try function("curl_version_info", as: jobrun_curl_version_info_fn.self)
        // `version_num` is a constant of the library: reading it before `curl_global_init` is safe.
        guard let found = versionInfo(jobrun_curl_version_now()).map({ UInt32($0.pointee.version_num) }) else {
            throw EngineError("\(file) did not report its version")
        }
        guard found >= minimumVersion else {
            throw EngineError("\(file) is libcurl \(Self.dotted(found)), too old")
        }
        versionNumber = found
        globalInit = try function("curl_global_init", as: jobrun_curl_global_init_fn.self)
        easyInit = try function("curl_easy_init", as: jobrun_curl_easy_init_fn.self)
        easyCleanup = try function("curl_easy_cleanup", as: jobrun_curl_easy_cleanup_fn.self)
        easyStrerror = try function("curl_easy_strerror", as: jobrun_curl_easy_strerror_fn.self)
        easyPause = try function("curl_easy_pause", as: jobrun_curl_easy_pause_fn.self)
        multiInit = try function("curl_multi_init", as: jobrun_curl_multi_init_fn.self)
        multiCleanup = try function("curl_multi_cleanup", as: jobrun_curl_multi_cleanup_fn.self)
        multiAddHandle = try function("curl_multi_add_handle", as: jobrun_curl_multi_add_handle_fn.self)
        multiRemoveHandle = try function("curl_multi_remove_handle", as: jobrun_curl_multi_remove_handle_fn.self)
        multiPerform = try function("curl_multi_perform", as: jobrun_curl_multi_perform_fn.self)
        multiPoll = try function("curl_multi_poll", as: jobrun_curl_multi_poll_fn.self)
        multiWakeup = try function("curl_multi_wakeup", as: jobrun_curl_multi_wakeup_fn.self)
        multiInfoRead = try function("curl_multi_info_read", as: jobrun_curl_multi_info_read_fn.self)
        slistAppend = try function("curl_slist_append", as: jobrun_curl_slist_append_fn.self)
        slistFreeAll = try function("curl_slist_free_all", as: jobrun_curl_slist_free_all_fn.self)
        easySetopt = try symbol("curl_easy_setopt")
        easyGetinfo = try symbol("curl_easy_getinfo")
        multiSetopt = try symbol("curl_multi_setopt")
    }

    /// `0x075801` → `7.88.1`.
    static func dotted(_ versionNumber: UInt32) -> String {
        "\(versionNumber >> 16).\((versionNumber >> 8) & 0xFF).\(versionNumber & 0xFF)"
    }

    /// libcurl's message for a result code.
    func message(_ code: CURLcode) -> String {
        easyStrerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
    }
}
