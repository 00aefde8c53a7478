import Foundation
import JobrunTestSupport
import Testing

/// Plan text, plan JSON, saved plans, and verify's text, JSON and JUnit over ``MirrorFixture``,
/// compared byte for byte with `Golden/report/…` (jobrun's version masked as `@VERSION@`).
@Suite struct ReportGoldenTests {
    static let manifests = ["manifests", "--output", "mirror"]
    /// The run id in JSON and JUnit, fixed by `JOBRUN_RUN_ID`.
    static let runID = ["JOBRUN_RUN_ID": "golden-run"]
    /// A fixed clock, host name and run id make the JUnit report byte-stable.
    static let reproducible = ["SOURCE_DATE_EPOCH": "0", "JOBRUN_HOSTNAME": "test"].merging(runID) { $1 }

    static func withFixture<T>(_ body: (TemporaryDirectory) async throws -> T) async throws -> T {
        let directory = try MirrorFixture.make()
        defer { directory.remove() }
        return try await body(directory)
    }

    // MARK: plan

    @Test func planText() async throws {
        try await Self.withFixture { directory in
            let result = try await Harness.run(["plan"] + Self.manifests, in: directory.path)
            #expect(result.status == 0, "\(result)")
            Harness.expectGolden(Harness.maskingFreeSpace(result.stdout), "report/plan.txt")
            // The link is left alone and said so: planning never replaces what it did not write.
            Harness.expectGolden(result.stderr, "report/plan.stderr")
        }
    }

    @Test func planVerboseText() async throws {
        try await Self.withFixture { directory in
            let result = try await Harness.run(["plan", "-v", "--detailed-exitcode"] + Self.manifests, in: directory.path)
            #expect(result.status == 2, "\(result)")
            Harness.expectGolden(Harness.maskingFreeSpace(result.stdout), "report/plan-verbose.txt")
            Harness.expectGolden(result.stderr, "report/plan.stderr")
        }
    }

    @Test func planJSON() async throws {
        let version = try await Harness.version()
        try await Self.withFixture { directory in
            let result = try await Harness.run(["plan", "--json"] + Self.manifests, in: directory.path, environment: Self.runID)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains(#""jobrun_version": "\#(version)""#))
            Harness.expectGolden(Harness.maskingFreeSpace(Harness.maskingVersion(result.stdout, version)), "report/plan.json")
            Harness.expectGolden(result.stderr, "report/plan.stderr")
            // Signed URLs carry secrets in their query: only identities are written.
            #expect(!result.stdout.contains("sig=abc123"))
        }
    }

    @Test func savedPlan() async throws {
        let version = try await Harness.version()
        try await Self.withFixture { directory in
            let result = try await Harness.run(["plan", "--out", "plan.json"] + Self.manifests, in: directory.path)
            #expect(result.status == 0, "\(result)")
            Harness.expectGolden(Harness.maskingFreeSpace(result.stdout), "report/plan.txt")
            #expect(result.stderr.hasSuffix("Saved the plan to plan.json.\n"), "\(result.stderr)")
            let saved = try #require(directory.contents(of: "plan.json"))
            Harness.expectGolden(Harness.maskingFreeSpace(Harness.maskingVersion(saved, version)), "report/plan-saved.json")
            #expect(!saved.contains("sig=abc123"))
        }
    }

    // MARK: verify

    @Test func verifyText() async throws {
        try await Self.withFixture { directory in
            let result = try await Harness.run(["verify", "--extra"] + Self.manifests, in: directory.path)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            Harness.expectGolden(result.stdout, "report/verify.txt")

            let quiet = try await Harness.run(["verify", "--quiet"] + Self.manifests, in: directory.path)
            #expect(quiet.status == 1, "\(quiet)")
            Harness.expectGolden(quiet.stdout, "report/verify-quiet.txt")
        }
    }

    @Test func verifyJSON() async throws {
        let version = try await Harness.version()
        try await Self.withFixture { directory in
            let result = try await Harness.run(["verify", "--json", "--extra"] + Self.manifests, in: directory.path, environment: Self.runID)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            Harness.expectGolden(Harness.maskingVersion(result.stdout, version), "report/verify.json")
            #expect(!result.stdout.contains("sig=abc123"))
        }
    }

    /// `verify --junit reports/junit.xml --extra` over the fixture, with a fixed clock and host.
    static func verifyJUnit(in directory: TemporaryDirectory) async throws -> RunResult {
        try directory.makeDirectory("reports")
        return try await Harness.run(
            ["verify", "--junit", "reports/junit.xml", "--extra"] + Self.manifests, in: directory.path,
            environment: Self.reproducible)
    }

    @Test func verifyJUnitIsStable() async throws {
        let version = try await Harness.version()
        try await Self.withFixture { directory in
            let result = try await Self.verifyJUnit(in: directory)
            #expect(result.status == 1, "\(result)")
            Harness.expectGolden(result.stdout, "report/verify.txt")
            let xml = try #require(directory.contents(of: "reports/junit.xml"), "no report written")
            Harness.expectGolden(Harness.maskingVersion(xml, version), "report/verify-junit.xml")

            // Byte-stable: a second run writes the same bytes.
            let again = try await Harness.run(
                ["verify", "--junit", "reports/again.xml", "--jobs", "1"] + Self.manifests, in: directory.path,
                environment: Self.reproducible)
            #expect(again.status == 1)
            #expect(directory.contents(of: "reports/again.xml") == xml)
        }
    }

    @Test(.needsJUnitSchemas) func verifyJUnitValidatesAgainstBothSchemas() async throws {
        let xsd = try SharedPaths.xsdDirectory()
        let schemas = [xsd + "/junit-ant-windyroad.xsd", xsd + "/junit-jenkins-xunit.xsd"]
        for schema in schemas { try #require(FileManager.default.fileExists(atPath: schema), "missing \(schema)") }
        try #require(XMLLint.executable != nil, "xmllint not found (Debian: libxml2-utils); the schema checks must run")

        try await Self.withFixture { directory in
            let result = try await Self.verifyJUnit(in: directory)
            #expect(result.status == 1, "\(result)")
            let xml = try #require(directory.contents(of: "reports/junit.xml"), "no report written")
            for schema in schemas {
                let (ok, output) = XMLLint.validate(xmlFile: directory.path("reports/junit.xml"), schema: schema)
                #expect(ok, "\(schema):\n\(output)")
                #expect(output.contains("validates"), "xmllint did not say it validated: \(output)")
            }
            // The check can fail: the strict schema refuses a report without host names.
            let broken = try directory.write(
                file: "reports/broken.xml", contents: xml.replacingOccurrences(of: #" hostname="test""#, with: ""))
            let (ok, output) = XMLLint.validate(xmlFile: broken, schema: schemas[0])
            #expect(!ok, "the Ant schema accepted a testsuite without hostname: \(output)")
        }
    }
}
