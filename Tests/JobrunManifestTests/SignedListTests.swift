import Foundation
import JobrunCore
import JobrunTestSupport
import Testing

@testable import JobrunManifest

/// `slices_from` with `minisign_key` or `signify_key`: the list is read only once its detached
/// signature verifies, and otherwise yields nothing, with an error that says why and where.
let signingToolsAvailable =
    FileManager.default.isExecutableFile(atPath: "/usr/bin/minisign") && FileManager.default.isExecutableFile(atPath: "/usr/bin/signify-openbsd")

@Suite(.enabled(if: signingToolsAvailable, "needs minisign and signify-openbsd"))
struct SignedListTests {
    static let list = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824  a.iso\n"

    /// A key pair of `tool` made in `dir` and `list` signed with it: the files' bytes by name
    /// (`release.pub`, `SUMS`, `SUMS.minisig` or `SUMS.sig`).
    static func signed(_ tool: String, list: String = Self.list, in dir: TemporaryDirectory, name: String = "release") async throws -> [String: String] {
        _ = try dir.write(file: "SUMS", contents: list)
        let runner = BinaryRunner(executable: "/usr/bin/" + tool, defaultTimeout: .seconds(30))
        let signature = tool == "minisign" ? "SUMS.minisig" : "SUMS.sig"
        let steps =
            tool == "minisign"
            ? [["-G", "-W", "-f", "-p", "\(name).pub", "-s", "\(name).sec"], ["-S", "-s", "\(name).sec", "-m", "SUMS"]]
            : [["-G", "-n", "-p", "\(name).pub", "-s", "\(name).sec"], ["-S", "-s", "\(name).sec", "-m", "SUMS"]]
        try? FileManager.default.removeItem(atPath: dir.path(signature))
        try? FileManager.default.removeItem(atPath: dir.path("\(name).pub"))
        for step in steps {
            let result = try await runner.run(step, workingDirectory: dir.path)
            try #require(result.status == 0, "\(result)")
        }
        return ["\(name).pub": try #require(dir.contents(of: "\(name).pub")), "SUMS": list, signature: try #require(dir.contents(of: signature))]
    }

    static func manifest(_ key: String, extra: String = "") -> String {
        "version: 1\nresources:\n  - id: r\n    base_url: https://example.com/\n    slices_from: {path: SUMS, \(key)\(extra)}\n"
    }

    @Test(arguments: ["minisign", "signify-openbsd"])
    func aSignedListIsReadAndATamperedOneIsNot(tool: String) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var files = try await Self.signed(tool, in: dir)
        let field = tool == "minisign" ? "minisign_key" : "signify_key"
        files["m.yaml"] = Self.manifest("\(field): release.pub")
        let good = try loadManifests(files)
        #expect(good.rendered == "")
        #expect(try #require(good.manifest).resources[0].slices.map(\.path) == ["a.iso"])
        // The key inline, as its base64 line.
        let inline = try #require(files["release.pub"]?.split(separator: "\n").last)
        files["m.yaml"] = Self.manifest("\(field): \(inline)")
        #expect(try loadManifests(files).rendered == "")

        files["SUMS"] = Self.list.replacingOccurrences(of: "a.iso", with: "b.iso")
        files["m.yaml"] = Self.manifest("\(field): release.pub")
        let tampered = try loadManifests(files)
        #expect(tampered.manifest == nil)
        #expect(tampered.rendered.contains("m.yaml:5:25: error: '"), "\(tampered.rendered)")
        #expect(
            tampered.rendered.contains("SUMS' is not trusted: the \(tool == "minisign" ? "minisign" : "signify") signature does not match the file"),
            "\(tampered.rendered)")
        #expect(tampered.rendered.contains("none of its slices is used") && !tampered.rendered.contains("has no slices"), "\(tampered.rendered)")
    }

    @Test func anotherKeyAMissingSignatureAndMistakesAreSaidAtTheirPlace() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var files = try await Self.signed("minisign", in: dir)
        let other = try await Self.signed("minisign", in: dir, name: "other")
        files["other.pub"] = other["other.pub"]
        files["m.yaml"] = Self.manifest("minisign_key: other.pub, signature: SUMS.minisig")
        let wrongKey = try loadManifests(files)
        #expect(wrongKey.rendered.contains("m.yaml:5:67: error: '"), "\(wrongKey.rendered)")
        #expect(wrongKey.rendered.contains("is not trusted: it was made with key ") && wrongKey.rendered.contains("(line 2 of '"), "\(wrongKey.rendered)")

        files["m.yaml"] = Self.manifest("minisign_key: release.pub, signature: gone.minisig")
        #expect(try loadManifests(files).rendered.contains("error: cannot read the minisign signature '"), "missing signature")
        files["m.yaml"] = Self.manifest("minisign_key: release.pub, signify_key: release.pub")
        #expect(try loadManifests(files).rendered.contains("error: 'minisign_key' and 'signify_key' both given"))
        files["m.yaml"] = Self.manifest("signature: SUMS.minisig")
        #expect(try loadManifests(files).rendered.contains("error: 'signature' needs the key it is checked with"))
        files["m.yaml"] = Self.manifest("minisign_key: SUMS")
        let notAKey = try loadManifests(files).rendered
        #expect(notAKey.contains("m.yaml:5:45: error: 'minisign_key' 'SUMS': line 1 is not a minisign public key"), "\(notAKey)")
        files["m.yaml"] = Self.manifest("minisign_key: nowhere.pub")
        #expect(try loadManifests(files).rendered.contains("error: cannot read 'minisign_key' file '"))
    }
}
