import Foundation
import JobrunConditions
import JobrunTestSupport
import Testing

/// The metered condition: NetworkManager's `Metered` property, its guesses counted as what they
/// guess, and every way of not getting it shown as `unknown` with its reason.
@Suite struct MeteredStateTests {
    /// Every `NMMetered` value, and numbers NetworkManager does not define.
    static let table: [(metered: UInt32, value: MeteredState.Value, name: String)] = [
        (0, .unknown, "UNKNOWN"), (1, .yes, "YES"), (2, .no, "NO"), (3, .yes, "GUESS_YES"), (4, .no, "GUESS_NO"),
        (5, .unknown, "5"), (7, .unknown, "7"), (UInt32.max, .unknown, "4294967295"),
    ]

    @Test func networkManagerValues() {
        for row in Self.table {
            let state = MeteredState(networkManagerMetered: row.metered)
            #expect(state == MeteredState(value: row.value, source: "NetworkManager Metered=\(row.name)"))
            #expect(state.isMetered == (row.value == .yes))
        }
        #expect(!MeteredState(value: .unknown, source: "no NetworkManager").isMetered, "unknown counts as not metered")
    }

    @Test func theSystemBusAddress() {
        let variable = MeteredState.systemBusVariable
        #expect(variable == "DBUS_SYSTEM_BUS_ADDRESS")
        #expect(MeteredState.systemBusAddress(environment: [:]) == "unix:path=/run/dbus/system_bus_socket")
        #expect(MeteredState.systemBusAddress(environment: [variable: ""]) == MeteredState.defaultSystemBusAddress)
        #expect(MeteredState.systemBusAddress(environment: [variable: "unix:path=/x/bus", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/y"]) == "unix:path=/x/bus")
    }
}

/// The probe against a real `dbus-daemon` on a private bus, with a stand-in NetworkManager
/// (`Tests/Support/fake_networkmanager.py`); Linux only, where libsystemd is.
#if os(Linux)
@Suite struct MeteredProbeTests {
    /// Runs a probe on a thread of its own: it blocks for up to its timeout, never on one of the
    /// few threads that run Swift tasks.
    static func offThePool(_ probe: @escaping @Sendable () -> MeteredState) async -> MeteredState {
        await timed(probe).state
    }

    /// ``offThePool(_:)``, with how long the probe took on its thread (a busy test run may be
    /// slow to resume the test after it).
    static func timed(_ probe: @escaping @Sendable () -> MeteredState) async -> (state: MeteredState, took: Duration) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let clock = ContinuousClock()
                let started = clock.now
                let state = probe()
                continuation.resume(returning: (state, clock.now - started))
            }
        }
    }

    func probe(busAddress: String, timeout: Duration = MeteredState.defaultTimeout) async -> MeteredState {
        await Self.offThePool { MeteredState.networkManager(busAddress: busAddress, timeout: timeout) }
    }

    /// Every value read over the bus, one stand-in re-reading its file at each call.
    @Test func readsMeteredOverTheBus() async throws {
        let bus = try await PrivateBus.start()
        defer { bus.stop() }
        let file = try bus.directory.write(file: "metered", contents: "0")
        let manager = try await FakeNetworkManager.start(on: bus, .meteredFile(file))
        defer { manager.stop() }
        for row in MeteredStateTests.table {
            try bus.directory.write(file: "metered", contents: String(row.metered))
            let state = await probe(busAddress: bus.address, timeout: .seconds(10))
            #expect(state == MeteredState(value: row.value, source: "NetworkManager Metered=\(row.name)"), "Metered=\(row.metered)")
        }
        #expect(manager.calls == Array(repeating: "Get org.freedesktop.NetworkManager Metered", count: MeteredStateTests.table.count))

        // The environment's DBUS_SYSTEM_BUS_ADDRESS names the bus.
        try bus.directory.write(file: "metered", contents: "3")
        let environment = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address]
        let viaEnvironment = await Self.offThePool { MeteredState.networkManager(environment: environment, timeout: .seconds(10)) }
        #expect(viaEnvironment == MeteredState(value: .yes, source: "NetworkManager Metered=GUESS_YES"))

        // A Metered that is not a uint32.
        try bus.directory.write(file: "metered", contents: "metered")
        let wrongType = await probe(busAddress: bus.address, timeout: .seconds(10))
        #expect(wrongType == MeteredState(value: .unknown, source: "NetworkManager Metered unreadable (not a uint32)"))
    }

    @Test func noNetworkManagerOnTheBus() async throws {
        let bus = try await PrivateBus.start()
        defer { bus.stop() }
        let state = await probe(busAddress: bus.address, timeout: .seconds(10))
        #expect(state == MeteredState(value: .unknown, source: "no NetworkManager"))
    }

    /// The call is sent with auto-start off: a NetworkManager the bus could start is not started
    /// (its starter would leave a file), and counts as absent.
    @Test func neverStartsNetworkManager() async throws {
        let scripts = try TemporaryDirectory(prefix: "activation")
        defer { scripts.remove() }
        let marker = scripts.path("started")
        let starter = try scripts.write(file: "start-networkmanager", contents: "#!/bin/sh\necho started > '\(marker)'\n")
        #expect(chmod(starter, 0o755) == 0)
        let bus = try await PrivateBus.start(activatable: ["org.freedesktop.NetworkManager": starter])
        defer { bus.stop() }
        // Long enough for an activation to run its course, so that a wrong flag shows.
        let state = await probe(busAddress: bus.address, timeout: .seconds(10))
        #expect(state == MeteredState(value: .unknown, source: "no NetworkManager"))
        #expect(!scripts.exists("started"), "the probe started NetworkManager:\n\(bus.diagnostics)")
    }

    @Test func aNetworkManagerThatNeverAnswers() async throws {
        let bus = try await PrivateBus.start()
        defer { bus.stop() }
        let manager = try await FakeNetworkManager.start(on: bus, .noReply)
        defer { manager.stop() }
        let address = bus.address
        // Time for a loaded machine's bus to connect; the rest of it is NetworkManager's.
        let (state, took) = await Self.timed { MeteredState.networkManager(busAddress: address, timeout: .seconds(2)) }
        #expect(state == MeteredState(value: .unknown, source: "NetworkManager did not answer within 2000 ms"))
        // The margin is for a loaded machine; sd-bus's own limit would be 25 s.
        #expect(took >= .seconds(2) && took < .seconds(7), "took \(took)")
        #expect(await Poll.until(timeout: .seconds(10)) { manager.calls.count == 1 }, "the call reached the stand-in")
    }

    @Test func noBusAtTheAddress() async throws {
        let dir = try TemporaryDirectory(prefix: "nobus")
        defer { dir.remove() }
        let missing = "unix:path=" + dir.path("missing")
        #expect(
            await probe(busAddress: missing)
                == MeteredState(
                    value: .unknown, source: "no system bus (\(missing): No such file or directory)"))

        // A socket file nobody listens on (a daemon that died).
        let stale = try UnixSocketFile(path: dir.path("stale"), isListening: false)
        defer { stale.close() }
        let refused = "unix:path=" + dir.path("stale")
        #expect(
            await probe(busAddress: refused)
                == MeteredState(
                    value: .unknown, source: "no system bus (\(refused): Connection refused)"))

        #expect(await probe(busAddress: "not an address").source.hasPrefix("no system bus (not an address: "))
    }

    /// A bus that takes the connection and never says anything (a hung daemon): sd-bus alone would
    /// wait 90 s to authenticate.
    @Test func aBusThatNeverAnswers() async throws {
        let dir = try TemporaryDirectory(prefix: "silentbus")
        defer { dir.remove() }
        let silent = try UnixSocketFile(path: dir.path("bus"), isListening: true)
        defer { silent.close() }
        let address = "unix:path=" + dir.path("bus")
        let (state, took) = await Self.timed { MeteredState.networkManager(busAddress: address, timeout: .milliseconds(300)) }
        #expect(state == MeteredState(value: .unknown, source: "no system bus (\(address): no answer within 300 ms)"))
        // The margin is for a loaded machine; sd-bus's own limit would be 90 s.
        #expect(took >= .milliseconds(300) && took < .milliseconds(5300), "took \(took)")
    }
}
#endif
