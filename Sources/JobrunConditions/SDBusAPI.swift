internal import CSDBus
import JobrunCore

/// The entry points of sd-bus (libsystemd's D-Bus client), looked up in the library loaded with
/// `dlopen`: jobrun does not link libsystemd, so it starts where there is none (macOS, musl,
/// containers without it) and the metered condition is then unknown, with that reason.
///
/// Immutable once made (`@unchecked Sendable`: C function pointers and the library handle).
final class SDBusAPI: @unchecked Sendable {
    let newBus: jobrun_sd_bus_new_fn
    let setAddress: jobrun_sd_bus_set_address_fn
    let setBusClient: jobrun_sd_bus_set_bus_client_fn
    let start: jobrun_sd_bus_start_fn
    let isReady: jobrun_sd_bus_is_ready_fn
    let process: jobrun_sd_bus_process_fn
    let wait: jobrun_sd_bus_wait_fn
    let closeUnref: jobrun_sd_bus_close_unref_fn
    let newMethodCall: jobrun_sd_bus_message_new_method_call_fn
    let appendBasic: jobrun_sd_bus_message_append_basic_fn
    let setAutoStart: jobrun_sd_bus_message_set_auto_start_fn
    let call: jobrun_sd_bus_call_fn
    let enterContainer: jobrun_sd_bus_message_enter_container_fn
    let readBasic: jobrun_sd_bus_message_read_basic_fn
    let messageUnref: jobrun_sd_bus_message_unref_fn
    let errorFree: jobrun_sd_bus_error_free_fn

    /// The soname of libsystemd's only ABI; none where there is no systemd to have it.
    #if os(Linux)
    static let libraryNames = ["libsystemd.so.0"]
    #else
    static let libraryNames: [String] = []
    #endif

    /// sd-bus, loaded once (by whichever thread asks first; the others wait for it). The
    /// failure is the reason for people: `no sd-bus library`, or what `dlopen` said.
    static let shared: Result<SDBusAPI, LoadFailure> = load(from: libraryNames)

    /// Why sd-bus cannot be used here.
    struct LoadFailure: Error, Equatable {
        var reason: String
    }

    /// Loads the first of `names` that `dlopen` opens and looks up every entry point in it.
    static func load(from names: [String]) -> Result<SDBusAPI, LoadFailure> {
        guard !names.isEmpty else { return .failure(LoadFailure(reason: "no sd-bus library")) }
        var reasons: [String] = []
        for name in names {
            // Local: libsystemd's symbols do not join the process's global namespace.
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? "\(name) cannot be opened")
                continue
            }
            do {
                return .success(try SDBusAPI(handle: handle, file: name))
            } catch {
                dlclose(handle)
                return .failure(error)
            }
        }
        return .failure(LoadFailure(reason: "no sd-bus library: " + reasons.joined(separator: "; ")))
    }

    private init(handle: UnsafeMutableRawPointer, file: String) throws(LoadFailure) {
        func function<F>(_ name: String, as type: F.Type) throws(LoadFailure) -> F {
            // sd_bus_is_ready (systemd 237) and sd_bus_close_unref (241) are the youngest here.
            guard let p = dlsym(handle, name) else { throw LoadFailure(reason: "\(file) has no \(name)") }
            return unsafeBitCast(p, to: F.self)
        }
        newBus = try function("sd_bus_new", as: jobrun_sd_bus_new_fn.self)
        setAddress = try function("sd_bus_set_address", as: jobrun_sd_bus_set_address_fn.self)
        setBusClient = try function("sd_bus_set_bus_client", as: jobrun_sd_bus_set_bus_client_fn.self)
        start = try function("sd_bus_start", as: jobrun_sd_bus_start_fn.self)
        isReady = try function("sd_bus_is_ready", as: jobrun_sd_bus_is_ready_fn.self)
        process = try function("sd_bus_process", as: jobrun_sd_bus_process_fn.self)
        wait = try function("sd_bus_wait", as: jobrun_sd_bus_wait_fn.self)
        closeUnref = try function("sd_bus_close_unref", as: jobrun_sd_bus_close_unref_fn.self)
        newMethodCall = try function("sd_bus_message_new_method_call", as: jobrun_sd_bus_message_new_method_call_fn.self)
        appendBasic = try function("sd_bus_message_append_basic", as: jobrun_sd_bus_message_append_basic_fn.self)
        setAutoStart = try function("sd_bus_message_set_auto_start", as: jobrun_sd_bus_message_set_auto_start_fn.self)
        call = try function("sd_bus_call", as: jobrun_sd_bus_call_fn.self)
        enterContainer = try function("sd_bus_message_enter_container", as: jobrun_sd_bus_message_enter_container_fn.self)
        readBasic = try function("sd_bus_message_read_basic", as: jobrun_sd_bus_message_read_basic_fn.self)
        messageUnref = try function("sd_bus_message_unref", as: jobrun_sd_bus_message_unref_fn.self)
        errorFree = try function("sd_bus_error_free", as: jobrun_sd_bus_error_free_fn.self)
    }
}
