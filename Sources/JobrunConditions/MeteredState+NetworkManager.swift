import JobrunCore
import JobrunSystem

extension MeteredState {
    /// The variable that names the system bus, as every D-Bus client reads it.
    public static let systemBusVariable = "DBUS_SYSTEM_BUS_ADDRESS"
    /// The system bus when the variable is unset (the D-Bus specification's default).
    public static let defaultSystemBusAddress = "unix:path=/run/dbus/system_bus_socket"
    /// How long the probe waits for the bus and NetworkManager together, by default: long enough
    /// for a busy daemon, short enough that nobody waits on a hung one.
    public static let defaultTimeout = Duration.milliseconds(500)

    /// `$DBUS_SYSTEM_BUS_ADDRESS` of `environment` (unless empty), else the default socket.
    public static func systemBusAddress(environment: [String: String]) -> String {
        guard let address = environment[systemBusVariable], !address.isEmpty else { return defaultSystemBusAddress }
        return address
    }

    /// Asks NetworkManager on the system bus that `environment` names (the process's in use,
    /// ``systemBusAddress(environment:)``); see ``networkManager(busAddress:timeout:)``.
    public static func networkManager(environment: [String: String], timeout: Duration = defaultTimeout) -> MeteredState {
        networkManager(busAddress: systemBusAddress(environment: environment), timeout: timeout)
    }

    /// Asks NetworkManager whether the network is metered: its `Metered` property
    /// (``init(networkManagerMetered:)``), read over a connection of its own to the bus at
    /// `busAddress` (a D-Bus address, `unix:path=…`) with libsystemd's sd-bus, loaded at run time.
    /// Returns within about `timeout` whatever the bus and NetworkManager do, and never starts
    /// NetworkManager (the call is sent with auto-start off). Anything that keeps the answer
    /// away is `unknown`, and ``source`` says what it was:
    ///
    /// | what happened                                          | source                                           |
    /// |--------------------------------------------------------|--------------------------------------------------|
    /// | an answer                                              | `NetworkManager Metered=GUESS_YES`               |
    /// | nobody owns the name (not running, not installed)      | `no NetworkManager`                              |
    /// | no libsystemd (macOS; a container without it)          | `no system bus (no sd-bus library…)`             |
    /// | no socket, connecting refused or not allowed, …        | `no system bus (<address>: <reason>)`            |
    /// | the bus did not finish connecting in time              | `no system bus (<address>: no answer within 500 ms)` |
    /// | NetworkManager did not answer in time                  | `NetworkManager did not answer within 500 ms`    |
    /// | another error reply, an answer of the wrong type       | `NetworkManager Metered unreadable (<why>)`      |
    public static func networkManager(busAddress: String, timeout: Duration = defaultTimeout) -> MeteredState {
        let deadline = ContinuousClock.now + timeout
        do {
            let bus = try BusConnection(address: busAddress, deadline: deadline)
            let metered = try bus.uint32Property(
                destination: "org.freedesktop.NetworkManager", object: "/org/freedesktop/NetworkManager",
                interface: "org.freedesktop.NetworkManager", property: "Metered", deadline: deadline)
            return MeteredState(networkManagerMetered: metered)
        } catch {
            return MeteredState(value: .unknown, source: source(of: error, busAddress: busAddress, timeout: timeout))
        }
    }

    /// The source that says why the bus gave no value.
    static func source(of failure: BusConnection.Failure, busAddress: String, timeout: Duration) -> String {
        let within = "within \(timeout.wholeMilliseconds) ms"
        switch failure {
        case .noLibrary(let reason):
            return "no system bus (\(reason))"
        case .unreachable(let code):
            return "no system bus (\(busAddress): \(systemErrorText(code)))"
        case .busSilent:
            return "no system bus (\(busAddress): no answer \(within))"
        case .noAnswer:
            return "NetworkManager did not answer \(within)"
        case .errorReply("org.freedesktop.DBus.Error.ServiceUnknown"), .errorReply("org.freedesktop.DBus.Error.NameHasNoOwner"):
            return "no NetworkManager"
        case .errorReply(let name):
            return "NetworkManager Metered unreadable (\(name))"
        case .unexpectedType:
            return "NetworkManager Metered unreadable (not a uint32)"
        }
    }
}
