import Foundation
import JobrunTestSupport
import Testing

/// Header values from `${VAR}`, and headers named like credentials, never leave jobrun readable:
/// not on stdout, not on stderr, not in any file it writes, whatever the command and whatever
/// goes wrong.
@Suite struct SecretTests {
    /// Unique per run, so a hit cannot be a coincidence.
    static let token = "tok-\(UUID().uuidString)"
    static let custom = "cus-\(UUID().uuidString)"
    static let literalKey = "literal-key-value"
    static let environment = ["JOBRUN_TEST_TOKEN": token, "JOBRUN_TEST_CUSTOM": custom]
    static let secrets = [token, custom, literalKey]

    static let manifest = """
        version: 1
        defaults:
          headers:
            Authorization: "Bearer ${JOBRUN_TEST_TOKEN}"
            X-Api-Key: literal-key-value
            User-Agent: secrets-test/1
        resources:
          - id: private
            base_url: https://cdn.example.com/private/
            headers:
              X-Custom: "v=${JOBRUN_TEST_CUSTOM}"
            slices:
              - path: a.bin
                size: 3
                headers:
                  X-Slice-Session: "${JOBRUN_TEST_CUSTOM}"
              - path: b.bin
                size: 4

        """

    /// The same manifest with a mistake beside the secrets: a CR in another header's value.
    static let brokenBesideSecrets = manifest.replacingOccurrences(
        of: "    User-Agent: secrets-test/1\n", with: "    User-Agent: \"secrets-test/1\\r\\nX-Evil: 1\"\n")

    /// Mistakes in the secret headers themselves: jobrun must say what is wrong without quoting them.
    static let brokenSecrets = """
        version: 1
        defaults:
          headers:
            Authorization: "Bearer ${JOBRUN_TEST_TOKEN}\\r"
            X-Api-Key: "literal-key-value\\n"
        resources:
          - id: private
            base_url: https://cdn.example.com/private/
            headers:
              X-Custom: "${JOBRUN_TEST_CUSTOM}${JOBRUN_TEST_UNSET_SECRET_NAME}"
              X-Session: "${JOBRUN_TEST_CR_SECRET}"
            slices:
              - path: a.bin

        """

    static func expectNoSecret(in text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in secrets {
            #expect(!text.contains(secret), "\(what) contains '\(secret)':\n\(text)", sourceLocation: sourceLocation)
        }
    }

    static func expectNoSecretInFiles(under directory: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation) {
        for file in DirectoryTree.files(under: directory.path) {
            let name = String(file.dropFirst(directory.path.count + 1))
            if name.hasPrefix("manifests/") { continue }
            let bytes = FileManager.default.contents(atPath: file) ?? Data()
            expectNoSecret(in: String(decoding: bytes, as: UTF8.self), name, sourceLocation: sourceLocation)
        }
    }

    @Test func noCommandRevealsASecret() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-secrets")
        defer { directory.remove() }
        try directory.write(file: "manifests/site.yaml", contents: Self.manifest)
        try directory.write(file: "mirror/private/a.bin", contents: "abc")
        try directory.write(file: "mirror/private/junk", contents: "?")
        try directory.makeDirectory("saved")

        let runs: [[String]] = [
            ["validate"], ["graph"], ["plan"], ["plan", "-v"], ["plan", "--json"], ["plan", "--out", "saved/plan.json"],
            ["plan", "-v", "--out", "saved/plan-verbose.json", "--detailed-exitcode"],
            ["verify"], ["verify", "--json", "--extra"], ["verify", "--junit", "saved/junit.xml", "--extra"],
            ["plan", "--events", "saved/plan-events.ndjson"], ["plan", "--json", "--events", "saved/plan-json-events.ndjson"],
            ["plan", "--events", "-"], ["verify", "--events", "saved/verify-events.ndjson", "--extra"], ["verify", "--events", "-"],
        ]
        for arguments in runs {
            let result = try await Harness.run(
                arguments + ["manifests", "--output", "mirror"], in: directory.path, environment: Self.environment)
            let label = "jobrun " + arguments.joined(separator: " ")
            #expect([0, 1, 2].contains(result.status), "\(label): \(result)")
            Self.expectNoSecret(in: result.stdout, "\(label) stdout")
            Self.expectNoSecret(in: result.stderr, "\(label) stderr")
            if arguments == ["plan", "--json"] {
                let redacted = #""<redacted>""#
                for name in ["Authorization", "X-Api-Key", "X-Custom", "X-Slice-Session"] {
                    #expect(result.stdout.contains(#""\#(name)": \#(redacted)"#), "\(name) not redacted:\n\(result.stdout)")
                }
                // Not a secret, so shown: redaction is targeted, not blanket.
                #expect(result.stdout.contains(#""User-Agent": "secrets-test/1""#), "\(result.stdout)")
            }
        }
        #expect(directory.exists("saved/plan.json") && directory.exists("saved/junit.xml"))
        #expect(directory.exists("saved/plan-events.ndjson") && directory.exists("saved/verify-events.ndjson"))
        Self.expectNoSecretInFiles(under: directory)
        let saved = directory.contents(of: "saved/plan.json") ?? ""
        #expect(saved.contains(#""Authorization": "<redacted>""#), "\(saved)")
    }

    @Test(arguments: [("beside", brokenBesideSecrets), ("in", brokenSecrets)])
    func errorsBesideOrInSecretHeadersRevealNothing(label: String, text: String) async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-secrets")
        defer { directory.remove() }
        try #require(text != Self.manifest)
        try directory.write(file: "manifests/site.yaml", contents: text)
        for command in [["validate"], ["plan", "--json"], ["verify", "--junit", "junit.xml"], ["apply", "--events", "events.ndjson"]] {
            let result = try await Harness.run(
                command + ["manifests", "--output", "mirror"], in: directory.path,
                environment: Self.environment.merging(["JOBRUN_TEST_CR_SECRET": Self.token + "\r\nX-Evil: 1"]) { $1 })
            #expect(result.status == 65, "\(label): \(result)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("error: "), "\(result)")
            Self.expectNoSecret(in: result.stdout, "\(label) stdout")
            // A mistake in a secret's own line quotes that line as the file has it (`${VAR}`
            // unexpanded), so only there may a literal appear; a variable's value never.
            for secret in label == "beside" ? Self.secrets : [Self.token, Self.custom] {
                #expect(!result.stderr.contains(secret), "\(label) stderr contains '\(secret)':\n\(result.stderr)")
            }
        }
        // The stream of the failed apply: run_start and run_end, and no secret.
        let events = try #require(directory.contents(of: "events.ndjson"), "no events file")
        #expect(events.contains(#""type":"run_end""#) && events.contains(#""exit_status":65"#), "\(events)")
        Self.expectNoSecret(in: events, "\(label) events")
        #expect(!directory.exists("mirror") && !directory.exists("junit.xml"))
    }

    /// A diagnostic quotes its whole source line; on a flow-style line that line can hold a literal
    /// credential beside the mistake. The spec says `<redacted>` everywhere, errors included.
    @Test func aLiteralCredentialOnTheLineOfAnotherMistakeIsNotQuoted() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-secrets")
        defer { directory.remove() }
        try directory.write(
            file: "site.yaml",
            contents: """
                version: 1
                resources:
                  - id: a
                    base_url: https://cdn.example.com/
                    headers: {X-Api-Key: \(Self.literalKey), X-Bad: "a\\rb"}
                    slices: [{path: x}]

                """)
        let result = try await Harness.run(["validate", "site.yaml"], in: directory.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("the value of header 'X-Bad' contains a carriage return"), "\(result)")
        #expect(!result.stderr.contains(Self.literalKey), "\(result.stderr)")
        #expect(result.stderr.contains("<redacted>"), "\(result.stderr)")
    }
}
