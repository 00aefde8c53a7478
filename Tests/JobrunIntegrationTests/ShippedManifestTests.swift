import Foundation
import JobrunTestSupport
import Testing

/// Every manifest the repository ships (`manifests/` and `examples/`, found at run time, none
/// skipped) must validate and plan cleanly: no error, no warning, against an empty mirror.
/// `examples/monitoring` holds Prometheus rules, not manifests (``MetricsFileTests`` checks them).
@Suite struct ShippedManifestTests {
    /// Paths relative to the package root, sorted.
    static let manifests: [String] = {
        guard let root = SharedPaths.packageRoot(startingAt: #filePath) else { return [] }
        var found: [String] = []
        for top in ["manifests", "examples"] {
            for file in DirectoryTree.files(under: root + "/" + top)
            where (file.hasSuffix(".yaml") || file.hasSuffix(".yml")) && !file.hasPrefix(root + "/examples/monitoring/") {
                found.append(String(file.dropFirst(root.count + 1)))
            }
        }
        return found.sorted()
    }()

    @Test func thereAreManifestsToCheck() {
        #expect(Self.manifests.contains("examples/demo/demo.yaml"), "\(Self.manifests)")
    }

    /// `${VAR}` references, so the test can give each a harmless value, as CI would.
    static func variables(in text: String) -> [String: String] {
        var variables: [String: String] = [:]
        var rest = Substring(text)
        while let open = rest.range(of: "${") {
            rest = rest[open.upperBound...]
            guard let close = rest.firstIndex(of: "}") else { break }
            variables[String(rest[..<close])] = "placeholder-value"
            rest = rest[close...]
        }
        return variables
    }

    @Test(arguments: manifests)
    func plansCleanly(manifest: String) async throws {
        let root = try Harness.packageRoot
        let text = try String(contentsOfFile: root + "/" + manifest, encoding: .utf8)
        let environment = Self.variables(in: text)
        let output = try TemporaryDirectory(prefix: "jobrun-shipped")
        defer { output.remove() }

        let validate = try await Harness.run(["validate", manifest], in: root, environment: environment)
        #expect(validate.status == 0, "\(validate)")
        #expect(validate.stderr.isEmpty, "\(validate.stderr)")

        let plan = try await Harness.run(
            ["plan", manifest, "--output", output.path("mirror"), "--detailed-exitcode"], in: root, environment: environment)
        #expect(plan.status == 0 || plan.status == 2, "\(plan)")
        #expect(plan.stderr.isEmpty, "\(plan.stderr)")
        #expect(plan.stdout.split(separator: "\n").last?.hasPrefix("Plan: ") == true, "\(plan.stdout)")

        let json = try await Harness.run(["plan", manifest, "--json", "--output", output.path("mirror")], in: root, environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        #expect((try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8))) != nil, "plan --json is not JSON")

        let graph = try await Harness.run(["graph", manifest], in: root, environment: environment)
        #expect(graph.status == 0 && graph.stdout.hasPrefix("digraph jobrun {"), "\(graph)")
        #expect(DirectoryTree.entries(under: output.path).isEmpty, "plan wrote into the mirror")
    }
}
