internal import CSDBus
import JobrunCore

/// A private connection to a D-Bus message bus that jobrun opens and closes itself (never the
/// process's shared default bus), every step of it bounded by one deadline: sd-bus's own waits
/// (90 s to authenticate, 25 s for the Hello) would let a hung daemon stall a cron job.
///
/// Owns its `sd_bus`; used by one thread at a time, as sd-bus requires.
final class BusConnection {
    /// Why a call did not return a value.
    enum Failure: Error, Equatable {
        /// sd-bus cannot be loaded (its reason).
        case noLibrary(String)
        /// The bus could not be reached: connecting, authenticating or the Hello failed, or the
        /// connection broke during the call (an `errno` value).
        case unreachable(errno: Int32)
        /// The bus did not finish connecting before the deadline.
        case busSilent
        /// No answer before the deadline (or the bus's own no-reply error).
        case noAnswer
        /// The error reply of the bus or of the peer: its D-Bus error name.
        case errorReply(name: String)
        /// The answer was not of the type asked for.
        case unexpectedType
    }

    private let api: SDBusAPI
    private let bus: OpaquePointer

    /// Connects to `address`, authenticates and says Hello before `deadline`.
    init(address: String, deadline: ContinuousClock.Instant) throws(Failure) {
        let api: SDBusAPI
        switch SDBusAPI.shared {
        case .success(let loaded): api = loaded
        case .failure(let failure): throw .noLibrary(failure.reason)
        }
        var made: OpaquePointer?
        let r = api.newBus(&made)
        guard r >= 0, let bus = made else { throw .unreachable(errno: -r) }
        self.api = api
        self.bus = bus
        // From here on `deinit` closes the bus, whatever is thrown.
        try check(api.setAddress(bus, address))
        try check(api.setBusClient(bus, 1))
        // Starts a non-blocking connect and queues the authentication and the Hello; the loop
        // below drives them instead of sd-bus's unbounded wait for them in its first call.
        try check(api.start(bus))
        let clock = ContinuousClock()
        while api.isReady(bus) <= 0 {
            let processed = api.process(bus, nil)
            try check(processed)
            if processed > 0 { continue }
            let left = clock.now.duration(to: deadline)
            guard left > .zero else { throw .busSilent }
            let waited = api.wait(bus, Self.microseconds(left))
            // A signal (jobrun handles several) only cuts the wait short.
            if waited != -EINTR { try check(waited) }
        }
    }

    deinit {
        // Not sd_bus_flush_close_unref: flushing first waits, without a time limit, for a
        // connection that never became ready, and nothing left queued here is worth sending.
        _ = api.closeUnref(bus)
    }

    /// The `u` property `property` of `interface` on `object` of `destination`
    /// (`org.freedesktop.DBus.Properties.Get`), answered before `deadline`. The call never
    /// starts `destination` (auto-start off): asking must not launch a service.
    func uint32Property(
        destination: String, object: String, interface: String, property: String, deadline: ContinuousClock.Instant
    ) throws(Failure) -> UInt32 {
        var message: OpaquePointer?
        try check(api.newMethodCall(bus, &message, destination, object, "org.freedesktop.DBus.Properties", "Get"))
        defer { _ = api.messageUnref(message) }
        try check(interface.withCString { api.appendBasic(message, Self.type("s"), $0) })
        try check(property.withCString { api.appendBasic(message, Self.type("s"), $0) })
        try check(api.setAutoStart(message, 0))

        let left = ContinuousClock().now.duration(to: deadline)
        guard left > .zero else { throw .noAnswer }
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        var reply: OpaquePointer?
        let r = api.call(bus, message, Self.microseconds(left), &error, &reply)
        defer {
            api.errorFree(&error)
            _ = api.messageUnref(reply)
        }
        if r < 0 { throw Self.failure(code: -r, errorName: error.name.map { String(cString: $0) }) }

        guard api.enterContainer(reply, Self.type("v"), "u") > 0 else { throw .unexpectedType }
        var value: UInt32 = 0
        guard api.readBasic(reply, Self.type("u"), &value) > 0 else { throw .unexpectedType }
        return value
    }

    /// What a failed `sd_bus_call` means. sd-bus names a local failure `System.Error.E…` after
    /// its `errno`; any other name is an error reply from the bus or the peer.
    static func failure(code: Int32, errorName: String?) -> Failure {
        if code == ETIMEDOUT { return .noAnswer }
        guard let name = errorName, !name.hasPrefix("System.Error.") else { return .unreachable(errno: code) }
        switch name {
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.TimedOut":
            return .noAnswer
        default:
            return .errorReply(name: name)
        }
    }

    /// A negative sd-bus result as a failure to reach the bus.
    private func check(_ result: Int32) throws(Failure) {
        if result < 0 { throw .unreachable(errno: -result) }
    }

    /// A D-Bus type code (`s`, `u`, `v`) as the `char` sd-bus takes.
    private static func type(_ code: Unicode.Scalar) -> CChar {
        CChar(bitPattern: UInt8(ascii: code))
    }

    /// At least 1 µs: sd-bus reads 0 as "its default", 25 s.
    static func microseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 1 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000)
        if overflow { return UInt64.max - 1 }
        return max(1, whole &+ UInt64(max(0, attoseconds) / 1_000_000_000_000))
    }
}
