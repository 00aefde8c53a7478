import Foundation
import JobrunTestSupport
import Testing

/// The worked deployments (examples/sharded, examples/unattended's systemd units) as far as this
/// machine can check them: each against its published schema where the checker is installed
/// (kubernetes-validate, check-jsonschema, systemd-analyze; otherwise skipped, with the reason),
/// and everywhere: every option their jobrun command lines pass is one the command has.
@Suite struct DeploymentExampleTests {
    static func path(_ relative: String) throws -> String { try Harness.packageRoot + "/examples/" + relative }

    /// The `--options` of every `jobrun apply` and `jobrun report merge` in `text`, by command.
    static func options(in text: String) -> [String: Set<String>] {
        // Lines continued with `\`, YAML's folded lines and argument lists read as one stream.
        let words = text.replacingOccurrences(of: "\\\n", with: " ").split(whereSeparator: { " \n\"',[]".contains($0) }).map(String.init)
        var found: [String: Set<String>] = [:]
        var command: String?
        var isNamingCommand = false
        for word in words {
            if word.hasPrefix("#") {
                command = nil
                isNamingCommand = false
            } else if word == "jobrun" || word.hasSuffix("bin/jobrun") {
                isNamingCommand = true
            } else if isNamingCommand {
                // YAML keys and list dashes may stand between the program and its command.
                guard !word.hasSuffix(":"), word != "-" else { continue }
                command = word == "apply" ? "apply" : word == "report" ? "report merge" : nil
                isNamingCommand = false
            } else if let command, word.hasPrefix("--") {
                found[command, default: []].insert(String(word.split(separator: "=").first ?? ""))
            }
        }
        return found
    }

    @Test(arguments: [
        "sharded/kubernetes.yaml.example", "sharded/github-actions.yml.example", "sharded/gitlab-ci.yml.example", "unattended/jobrun-mirror.service",
    ])
    func everyOptionIsOneTheCommandHas(example: String) async throws {
        let text = try String(contentsOfFile: try Self.path(example), encoding: .utf8)
        let byCommand = Self.options(in: text)
        #expect(byCommand["apply"]?.isEmpty == false, "no jobrun apply in \(example)")
        for (command, options) in byCommand {
            let help = try await Harness.run(command.split(separator: " ").map(String.init) + ["--help"], in: NSTemporaryDirectory())
            for option in options {
                #expect(help.stdout.contains(option + " ") || help.stdout.contains(option + "\n"), "jobrun \(command) has no \(option) (\(example))")
            }
        }
        if example.contains("sharded") {
            #expect(byCommand["apply"]?.contains("--shard") == true && byCommand["report merge"] != nil, "\(example) shards and merges")
        }
    }

    static let kubernetesValidate = Executables.find("kubernetes-validate")
    static let checkJSONSchema = Executables.find("check-jsonschema")
    static let systemdAnalyze = Executables.find("systemd-analyze")

    @Test(.enabled(if: kubernetesValidate != nil, "kubernetes-validate is not installed (pip install kubernetes-validate)"))
    func theKubernetesJobsAreValid() async throws {
        let result = try await BinaryRunner(executable: try #require(Self.kubernetesValidate)).run([
            "--strict", try Self.path("sharded/kubernetes.yaml.example"),
        ])
        #expect(result.status == 0 && result.stdout.components(separatedBy: " passed ").count == 3, "\(result)")
    }

    @Test(
        .enabled(if: checkJSONSchema != nil, "check-jsonschema is not installed (pip install check-jsonschema)"),
        arguments: [("sharded/github-actions.yml.example", "vendor.github-workflows"), ("sharded/gitlab-ci.yml.example", "vendor.gitlab-ci")])
    func thePipelinesAreValid(example: String, schema: String) async throws {
        let result = try await BinaryRunner(executable: try #require(Self.checkJSONSchema)).run([
            "--builtin-schema", schema, "--default-filetype", "yaml", try Self.path(example),
        ])
        #expect(result.status == 0, "\(result)")
    }

    /// The units as systemd reads them, with the jobrun under test in ExecStart.
    @Test(.enabled(if: systemdAnalyze != nil, "systemd-analyze is not installed"))
    func theSystemdUnitsAreValid() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-units")
        defer { directory.remove() }
        let jobrun = try BinaryRunner.locate()
        for unit in ["jobrun-mirror.service", "jobrun-mirror.timer"] {
            let text = try String(contentsOfFile: try Self.path("unattended/" + unit), encoding: .utf8)
            try directory.write(file: unit, contents: text.replacingOccurrences(of: "/usr/local/bin/jobrun", with: jobrun))
        }
        let result = try await BinaryRunner(executable: try #require(Self.systemdAnalyze)).run(
            ["verify", directory.path("jobrun-mirror.service"), directory.path("jobrun-mirror.timer")])
        #expect(result.status == 0 && result.stderr.isEmpty && result.stdout.isEmpty, "\(result)")
    }
}
