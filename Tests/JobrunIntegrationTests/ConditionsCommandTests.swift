import Foundation
import JobrunTestSupport
import Testing

/// `jobrun conditions`: every reading with its source, exit 0 when discretionary work could run
/// and 75 when not.
@Suite struct ConditionsCommandTests {
    struct Report: Decodable {
        struct Reading: Decodable {
            var name: String
            var value: String
            var source: String
            var defers: Bool
        }
        var formatVersion: Int
        var conditions: [Reading]
        var discretionaryWork: String
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (RunResult, Report?) {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let result = try await Harness.run(["conditions"] + arguments, in: dir.path, environment: environment)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return (result, arguments.contains("--json") ? try? decoder.decode(Report.self, from: Data(result.stdout.utf8)) : nil)
    }

    /// The exit status follows the readings: 75 exactly when one defers (this machine may be busy).
    static func expectConsistent(_ result: RunResult, _ report: Report, sourceLocation: SourceLocation = #_sourceLocation) {
        let defers = report.conditions.contains(where: \.defers)
        #expect(report.discretionaryWork == (defers ? "deferred" : "run"), sourceLocation: sourceLocation)
        #expect(result.status == (defers ? 75 : 0), "\(result)", sourceLocation: sourceLocation)
        #expect(report.conditions.map(\.name) == ["metered", "power", "busy"], sourceLocation: sourceLocation)
        #expect(report.conditions.allSatisfy { !$0.source.isEmpty }, sourceLocation: sourceLocation)
    }

    @Test func saidMeteredDefersAndIsShownWithItsSource() async throws {
        let (result, report) = try await Self.run(["--json", "--metered", "yes"])
        let r = try #require(report, "\(result)")
        #expect(result.status == 75, "\(result)")
        #expect(r.formatVersion == 1)
        #expect(r.conditions.first.map { "\($0.value) (\($0.source)) \($0.defers)" } == "yes (--metered yes) true")
        Self.expectConsistent(result, r)
        let (text, _) = try await Self.run([], environment: ["JOBRUN_METERED": "yes"])
        #expect(text.status == 75)
        #expect(text.stdout.hasPrefix("metered  yes"), "\(text)")
        #expect(text.stdout.contains("JOBRUN_METERED=yes\n"), "\(text)")
        #expect(text.stdout.hasSuffix("Discretionary work would be deferred: metered\(text.stdout.contains("busy     yes") ? ", busy" : "").\n"), "\(text)")
    }

    @Test func networkManagerIsAskedOnTheBusGiven() async throws {
        let bus = try await PrivateBus.start()
        defer { bus.stop() }
        let nm = try await FakeNetworkManager.start(on: bus, .metered("3"))
        defer { nm.stop() }
        let (result, report) = try await Self.run(["--json"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        let r = try #require(report, "\(result)")
        #expect(r.conditions.first.map { "\($0.value) (\($0.source))" } == "yes (NetworkManager Metered=GUESS_YES)")
        Self.expectConsistent(result, r)
        #expect(result.status == 75)
        // The option wins over NetworkManager, which is then not asked.
        let calls = nm.calls.count
        let (said, saidReport) = try await Self.run(["--json", "--metered", "no"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        #expect(saidReport?.conditions.first?.value == "no", "\(said)")
        #expect(nm.calls.count == calls)
    }

    @Test func noBusIsUnknownAndCountsAsGood() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let address = "unix:path=\(dir.path)/none"
        let (result, report) = try await Self.run(["--json"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": address])
        let r = try #require(report, "\(result)")
        let metered = try #require(r.conditions.first)
        #expect(metered.value == "unknown" && !metered.defers)
        #expect(metered.source == "no system bus (\(address): No such file or directory)")
        Self.expectConsistent(result, r)
    }

    @Test func aBadSettingIsAUsageError() async throws {
        let (env, _) = try await Self.run([], environment: ["JOBRUN_METERED": "sometimes"])
        #expect(env.status == 64 && env.stderr.contains("JOBRUN_METERED=sometimes is not one of yes, no, auto"), "\(env)")
        let (option, _) = try await Self.run(["--metered", "2"])
        #expect(option.status == 64 && option.stderr.contains("--metered: '2' is not one of yes, no, auto"), "\(option)")
    }
}
