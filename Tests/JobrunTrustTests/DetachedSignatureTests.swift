import Foundation
import JobrunTestSupport
import Testing

@testable import JobrunTrust

/// Lists signed by the real `minisign` and `signify-openbsd` (Debian's packages), checked with
/// OpenSSL: a good signature passes, a changed list, another key or a changed trusted comment
/// do not, each said as such.
@Suite struct DetachedSignatureTests {
    static let minisign = "/usr/bin/minisign"
    static let signify = "/usr/bin/signify-openbsd"
    static let available = FileManager.default.isExecutableFile(atPath: minisign) && FileManager.default.isExecutableFile(atPath: signify)

    /// A key pair and a signature of `list` made by `scheme`'s tool in `dir`; the public key
    /// file's text and the signature's bytes.
    static func signed(
        _ list: String, scheme: SignatureKey.Scheme, in dir: TemporaryDirectory, name: String = "k", legacy: Bool = false
    ) async throws -> (
        key: String, signature: [UInt8]
    ) {
        _ = try dir.write(file: "SUMS", contents: list)
        let tool = BinaryRunner(executable: scheme == .minisign ? minisign : signify, defaultTimeout: .seconds(30))
        let steps: [[String]]
        switch scheme {
        case .minisign:
            steps = [
                ["-G", "-W", "-f", "-p", "\(name).pub", "-s", "\(name).sec"],
                ["-S", "-s", "\(name).sec", "-m", "SUMS", "-x", "SUMS.sig", "-t", "release 1.0"] + (legacy ? ["-l"] : []),
            ]
        case .signify:
            steps = [["-G", "-n", "-p", "\(name).pub", "-s", "\(name).sec"], ["-S", "-s", "\(name).sec", "-m", "SUMS", "-x", "SUMS.sig"]]
        }
        for step in steps {
            try? FileManager.default.removeItem(atPath: dir.path("SUMS.sig"))
            let result = try await tool.run(step, workingDirectory: dir.path)
            try #require(result.status == 0, "\(result)")
        }
        return (try #require(dir.contents(of: "\(name).pub")), try #require(dir.bytes(of: "SUMS.sig")))
    }

    @Test(
        .enabled(if: available, "needs minisign and signify-openbsd"), arguments: [(SignatureKey.Scheme.minisign, false), (.minisign, true), (.signify, false)])
    func aGoodSignaturePassesAndAChangedListDoesNot(scheme: SignatureKey.Scheme, legacy: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let list = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824  a.iso\n"
        let (keyText, signature) = try await Self.signed(list, scheme: scheme, in: dir, legacy: legacy)
        let key = try SignatureKey(parsing: keyText, scheme: scheme)
        let verified = DetachedSignature.verify(Array(list.utf8), signature: signature, key: key)
        #expect(try verified.get().trustedComment == (scheme == .minisign ? "release 1.0" : nil))
        // The key alone (its base64 line), as a manifest may give it inline.
        let inline = try #require(keyText.split(separator: "\n").last.map(String.init))
        #expect(SignatureKey.isInline(inline) && !SignatureKey.isInline("keys/release.pub"))
        #expect((try? DetachedSignature.verify(Array(list.utf8), signature: signature, key: SignatureKey(parsing: inline, scheme: scheme)).get()) != nil)
        // Keys and signatures with CRLF line ends (copied through Windows) read the same.
        let crlfKey = try SignatureKey(parsing: keyText.replacingOccurrences(of: "\n", with: "\r\n"), scheme: scheme)
        let crlfSignature = Array(String(decoding: signature, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8)
        #expect(
            try DetachedSignature.verify(Array(list.utf8), signature: crlfSignature, key: crlfKey).get().trustedComment
                == (scheme == .minisign ? "release 1.0" : nil))
        // One byte changed in the list.
        var changed = Array(list.utf8)
        changed[3] ^= 1
        guard case .failure(let problem) = DetachedSignature.verify(changed, signature: signature, key: key) else {
            Issue.record("a changed list passed")
            return
        }
        #expect(problem.message.contains("does not match the file"), "\(problem)")
    }

    @Test(.enabled(if: available, "needs minisign and signify-openbsd"))
    func anotherKeyAndAChangedTrustedCommentAreRefused() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let list = "x\n"
        let (_, signature) = try await Self.signed(list, scheme: .minisign, in: dir, name: "one")
        let (other, _) = try await Self.signed(list, scheme: .minisign, in: dir, name: "two")
        let otherKey = try SignatureKey(parsing: other, scheme: .minisign)
        guard case .failure(let wrongKey) = DetachedSignature.verify(Array(list.utf8), signature: signature, key: otherKey) else {
            Issue.record("another key's signature passed")
            return
        }
        #expect(wrongKey.message.hasPrefix("it was made with key ") && wrongKey.message.contains("not with the key given (\(otherKey.keyIDText))"))
        // The trusted comment edited: the global signature no longer holds.
        let (key, good) = try await Self.signed(list, scheme: .minisign, in: dir, name: "three")
        let edited = String(decoding: good, as: UTF8.self).replacingOccurrences(of: "release 1.0", with: "release 9.9")
        let threeKey = try SignatureKey(parsing: key, scheme: .minisign)
        guard case .failure(let comment) = DetachedSignature.verify(Array(list.utf8), signature: Array(edited.utf8), key: threeKey) else {
            Issue.record("an edited trusted comment passed")
            return
        }
        #expect(comment.line == 3 && comment.message.contains("trusted comment was changed"))
    }

    @Test func malformedKeysAndSignaturesSayWhere() throws {
        #expect(throws: TrustProblem.self) { try SignatureKey(parsing: "untrusted comment: x\nnot base64!\n", scheme: .minisign) }
        #expect(throws: TrustProblem.self) { try SignatureKey(parsing: "", scheme: .signify) }
        // The right length in base64, but not an Ed25519 key.
        let notEd = "WlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpa"
        #expect((try? SignatureKey(parsing: notEd, scheme: .minisign)) == nil)
        let key = try SignatureKey(parsing: "RWSkQERHGC7+LQYLrtvvz1qqd0R42MSwtWTqZPearx1E0A/+uRPlh6EI", scheme: .minisign)
        #expect(key.keyIDText == "2DFE2E18474440A4")
        for (text, line) in [("", 1), ("untrusted comment: x\n", 2), ("untrusted comment: x\nAAAA\n", 2), ("hello\nworld\n", 1)] {
            guard case .failure(let problem) = DetachedSignature.verify([], signature: Array(text.utf8), key: key) else {
                Issue.record("'\(text)' passed")
                continue
            }
            #expect(problem.line == line, "\(text): \(problem)")
        }
    }

    @Test func base64IsStrict() {
        #expect(Base64.decode("aGVsbG8=") == Array("hello".utf8) && Base64.decode("aGk=") == Array("hi".utf8) && Base64.decode("") == [])
        for bad in ["aGVsbG8", "aGV=bG8=", "a===", "aGVs\nbG8=", "aGVsbG8*"] { #expect(Base64.decode(bad) == nil, "\(bad)") }
    }
}
