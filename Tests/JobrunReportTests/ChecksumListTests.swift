import JobrunCore
import JobrunManifest
import JobrunReport
import JobrunTestSupport
import Testing

/// The lists `--record-sums` writes: `sha256sum` lines, read back alike by `slices_from` and by
/// `sha256sum -c`.
@Suite struct ChecksumListTests {
    static func sha256(_ text: String) throws -> Digest { try Digest.compute(.sha256, of: Array(text.utf8)) }

    @Test func linesAreHexTwoSpacesAndThePathInTheOrderGiven() throws {
        let a = try Self.sha256("a"), b = try Self.sha256("b")
        let list = ChecksumList(lines: [.init(path: "z/last.ts", digest: a), .init(path: "clip 1.ts", digest: b)])
        #expect(String(decoding: list.rendered(), as: UTF8.self) == "\(a.hex)  z/last.ts\n\(b.hex)  clip 1.ts\n")
        #expect(ChecksumList().rendered().isEmpty)
    }

    /// GNU's escaping: a name holding `\`, a newline or a carriage return is escaped, and the
    /// line starts with `\`; other names (spaces, non-ASCII) are written as they are.
    @Test(arguments: [
        ("a\\b", "\\HEX  a\\\\b\n"),
        ("two\nlines", "\\HEX  two\\nlines\n"),
        ("cr\rhere", "\\HEX  cr\\rhere\n"),
        ("café/日本.ts", "HEX  café/日本.ts\n"),
    ])
    func escapesNamesAsGNUDoes(path: String, expected: String) throws {
        let digest = try Self.sha256("x")
        #expect(ChecksumList.line(path, digest) == expected.replacing("HEX", with: digest.hex))
    }

    /// What jobrun writes, jobrun reads: the list as a resource's `slices_from` gives the same
    /// paths and digests, in the same order.
    @Test func aListIsASlicesFromListAsItStands() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let lines: [ChecksumList.Line] = try ["b.ts", "a/x y.ts", "ü.ts"].map { .init(path: $0, digest: try Self.sha256($0)) }
        _ = try dir.write(file: "sums/r.sha256", bytes: ChecksumList(lines: lines).rendered())
        _ = try dir.write(file: "m.yaml", contents: "version: 1\nresources:\n  - id: r\n    base_url: https://h/\n    slices_from: sums/r.sha256\n")
        let loaded = ManifestLoader.load(paths: [dir.path("m.yaml")])
        let slices = try #require(loaded.manifest?.resources.first?.slices, "\(loaded.diagnostics)")
        #expect(slices.map(\.path) == lines.map(\.path))
        #expect(slices.map(\.digests) == lines.map { [$0.digest] })
    }

    /// `sha256sum -c` run in the folder the paths are relative to reads every line, escaped ones
    /// included, and fails when a file differs.
    @Test(.enabled(if: SHA256Sum.executable != nil, "needs sha256sum (coreutils)"))
    func sha256sumChecksAList() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let files = ["plain.ts": "one", "sub/back\\slash.ts": "two", "new\nline.ts": "three"]
        var lines: [ChecksumList.Line] = []
        for (path, text) in files.sorted(by: { $0.key < $1.key }) {
            _ = try dir.write(file: "mirror/\(path)", contents: text)
            lines.append(.init(path: path, digest: try Self.sha256(text)))
        }
        _ = try dir.write(file: "list.sha256", bytes: ChecksumList(lines: lines).rendered())
        let check = SHA256Sum.check(list: "../list.sha256", in: dir.path("mirror"))
        #expect(check.ok, "\(check.output)")
        _ = try dir.write(file: "mirror/plain.ts", contents: "changed")
        #expect(!SHA256Sum.check(list: "../list.sha256", in: dir.path("mirror")).ok)
    }

    @Test func integrityNotesListOnlySlicesWithoutADigest() throws {
        var notes = IntegrityNotes()
        notes.note("proven.bin", .digest)
        #expect(notes.systemOut == nil)
        let digest = try Self.sha256("x")
        notes.note("sized.bin", .sizeOnly)
        notes.note("bare.bin", .unverified, sha256: digest)
        #expect(notes.systemOut == "size only (no digest declared): sized.bin\nunverified (no digest or size declared): bare.bin, sha256 \(digest.hex)\n")
    }
}
