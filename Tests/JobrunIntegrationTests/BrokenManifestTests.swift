import Foundation
import JobrunTestSupport
import Testing

/// The corpus in `Corpus/broken/`: one manifest (or folder of manifests) per mistake, each with
/// the complete stderr jobrun must print in `Golden/broken/<name>.stderr`.
///
/// Every entry is copied into a scratch folder together with its companions (`NN-what.*`, e.g. a
/// `slices_from` list) and run from there, so the paths in the diagnostics are just the names.
@Suite struct BrokenManifestTests {
    static let corpusDirectory = Harness.testDirectory + "/Corpus/broken"
    static let goldenDirectory = Harness.testDirectory + "/Golden/broken"

    /// `NN-what.yaml` files and `NN-what/` folders, sorted.
    static let entries: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: corpusDirectory)) ?? []
        return names.filter { name in
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: corpusDirectory + "/" + name, isDirectory: &isDirectory)
            return exists && (isDirectory.boolValue || name.hasSuffix(".yaml"))
        }.sorted()
    }()

    /// `NN-what` of an entry.
    static func stem(_ entry: String) -> String {
        entry.hasSuffix(".yaml") ? String(entry.dropLast(".yaml".count)) : entry
    }

    /// A scratch folder holding the entry and its companions, and nothing else.
    static func stage(_ entry: String) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "jobrun-broken")
        let stem = stem(entry)
        for name in try FileManager.default.contentsOfDirectory(atPath: corpusDirectory)
        where name == entry || name.hasPrefix(stem + ".") {
            try DirectoryTree.copy(corpusDirectory + "/" + name, to: directory.path(name))
        }
        return directory
    }

    @Test func theCorpusCoversManyMistakesAndEveryGoldenHasAnEntry() throws {
        #expect(Self.entries.count >= 60, "\(Self.entries)")
        let goldens = (try? FileManager.default.contentsOfDirectory(atPath: Self.goldenDirectory)) ?? []
        let stems = Set(Self.entries.map(Self.stem))
        for golden in goldens where golden.hasSuffix(".stderr") {
            #expect(stems.contains(String(golden.dropLast(".stderr".count))), "Golden/broken/\(golden) has no corpus entry")
        }
        // Numbers are unique, so the order in which a reader meets them is the order on disk.
        let numbers = Self.entries.map { $0.prefix { $0 != "-" } }
        #expect(Set(numbers).count == numbers.count, "\(numbers)")
    }

    /// `validate` and `plan` both refuse the entry with exit status 65, print nothing on stdout,
    /// print exactly the golden on stderr, and write nothing (no output folder, no saved plan).
    @Test(arguments: entries)
    func isRefusedWithTheGoldenDiagnostics(entry: String) async throws {
        let directory = try Self.stage(entry)
        defer { directory.remove() }
        let before = DirectoryTree.entries(under: directory.path)

        let validate = try await Harness.run(["validate", entry, "--output", "out"], in: directory.path)
        #expect(validate.status == 65, "\(validate)")
        #expect(validate.stdout.isEmpty, "\(validate)")
        Harness.expectGolden(validate.stderr, "broken/\(Self.stem(entry)).stderr")

        let plan = try await Harness.run(["plan", entry, "--output", "out", "--out", "saved-plan.json"], in: directory.path)
        #expect(plan.status == 65, "\(plan)")
        #expect(plan.stdout.isEmpty, "\(plan)")
        #expect(plan.stderr == validate.stderr, "plan and validate report differently\n\(plan)")

        #expect(DirectoryTree.entries(under: directory.path) == before, "something was written")
    }

    /// Diagnostics name what they found, not only where: none is a bare location.
    @Test(arguments: entries)
    func everyDiagnosticHasASourceLineAndCaret(entry: String) throws {
        let golden = try #require(
            FileManager.default.contents(atPath: Self.goldenDirectory + "/" + Self.stem(entry) + ".stderr"),
            "no golden for \(entry)")
        let lines = String(decoding: golden, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "stderr must end with a newline")
        let summary = lines.dropLast().last.map(String.init) ?? ""
        #expect(summary.hasPrefix("jobrun: ") && summary.hasSuffix(" in the manifests; nothing was done."), "\(summary)")
        for (index, line) in lines.enumerated() where line.contains(": error: ") || line.contains(": note: ") || line.contains(": warning: ") {
            guard !line.hasPrefix("jobrun: ") else { continue }
            // `file:line:col: severity: message`, then the quoted line, then the caret.
            let location = line.split(separator: ":", maxSplits: 3)
            try #require(location.count == 4, "\(line)")
            let column = try #require(Int(location[2]), "\(line)")
            let caret = index + 2 < lines.count ? lines[index + 2] : ""
            if caret.hasSuffix("^"), caret.dropLast().allSatisfy({ $0 == " " || $0 == "\t" }) {
                #expect(caret.count == column, "caret not under column \(column) for \(line)")
            } else if !line.contains("the limit is") {
                Issue.record("no caret line after \(line)")
            }
        }
    }

    /// The same file URL manifest is fine once the user opts in.
    @Test func fileURLsAreAcceptedWithAllowFileURLs() async throws {
        let entry = try #require(Self.entries.first { $0.hasSuffix("-url-file.yaml") })
        let directory = try Self.stage(entry)
        defer { directory.remove() }
        let result = try await Harness.run(["validate", entry, "--allow-file-urls"], in: directory.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Valid: 1 manifest, 1 resource, 2 slices.\n", "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
    }

    /// All the corpus at once: one run reports the mistakes of every file, not only the first's.
    @Test func everyFileIsReportedInOneRun() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-broken-all")
        defer { directory.remove() }
        let files = Self.entries.filter { $0.hasSuffix(".yaml") }
        for entry in files {
            let staged = try Self.stage(entry)
            defer { staged.remove() }
            for name in try FileManager.default.contentsOfDirectory(atPath: staged.path) {
                try DirectoryTree.copy(staged.path(name), to: directory.path(name))
            }
        }
        let result = try await Harness.run(["validate"] + files + ["--output", "out"], in: directory.path)
        #expect(result.status == 65, "\(result)")
        for entry in files {
            #expect(result.stderr.contains("\(entry):"), "no diagnostic for \(entry)")
        }
        #expect(!directory.exists("out"))
    }
}
