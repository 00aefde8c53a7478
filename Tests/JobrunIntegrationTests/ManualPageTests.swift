import Foundation
import JobrunTestSupport
import Testing

/// `jobrun generate-manual` (hidden; `make install` installs what it writes as jobrun.1): an
/// mdoc page rendered from the parser's description of the commands, which mandoc and groff
/// (what `man` uses) read without a warning.
@Suite struct ManualPageTests {
    static let mandoc = Executables.find("mandoc")
    static let groff = Executables.find("groff")

    /// The page, written to `jobrun.1` in `directory`.
    static func page(in directory: TemporaryDirectory, environment: [String: String] = [:]) async throws -> String {
        let result = try await Harness.run(["generate-manual"], in: directory.path, environment: environment)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        _ = try directory.write(file: "jobrun.1", contents: result.stdout)
        return result.stdout
    }

    /// Every command, with its usage, its options under the sections `--help` shows and its
    /// whole reference; the exit statuses; the date `SOURCE_DATE_EPOCH` gives.
    @Test func thePageHasEveryCommandItsOptionsAndItsReference() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-man")
        defer { directory.remove() }
        let page = try await Self.page(in: directory, environment: ["SOURCE_DATE_EPOCH": "1795860000"])
        #expect(page.hasPrefix(".Dd November 28, 2026\n.Dt JOBRUN 1\n"), "\(page)")
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS"] {
            #expect(page.contains("\n.Sh \(section)\n"), "no section \(section)")
        }
        for command in HelpTests.commands.dropFirst() {
            #expect(page.contains("\n.Ss jobrun \(command.joined(separator: " "))\n"), "no subsection for \(command)")
        }
        #expect(page.contains("\njobrun apply [options] [manifests ...]\n"))
        for title in ["Manifests", "Selection and shards", "Transfers", "Reports", "Progress and output", "Network policy", "Deadline and offline", "Hooks"] {
            #expect(page.contains("\n.Sy \(title)\n"), "no section \(title)")
        }
        #expect(page.contains("\n.It Fl -progress Ar mode\n") && page.contains("\n.It Fl q , Fl -quiet\n"), "\(page)")
        // The references `--help` leaves out, and the exit statuses.
        #expect(page.contains("'Apply stopped at deadline: ...'") && page.contains("\nfetch       the file is missing\n"), "\(page)")
        #expect(page.contains("\n75   another apply holds an output root"), "\(page)")
        #expect(!page.contains("generate-manual") && !page.contains(".Ss jobrun help"), "\(page)")
    }

    @Test(.enabled(if: mandoc != nil, "mandoc is not installed (Debian: mandoc)"))
    func mandocFindsNothingToWarnAbout() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-man")
        defer { directory.remove() }
        _ = try await Self.page(in: directory)
        let lint = try await BinaryRunner(executable: try #require(Self.mandoc)).run(["-T", "lint", "-W", "warning", directory.path("jobrun.1")])
        #expect(lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "\(lint)")
    }

    /// What `man -l jobrun.1` shows: groff with its mdoc macros, every warning on.
    @Test(.enabled(if: groff != nil, "groff is not installed (Debian: groff-base)"))
    func manRendersThePage() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-man")
        defer { directory.remove() }
        _ = try await Self.page(in: directory)
        // -P-cbou: plain text, without bold or underlining.
        let rendered = try await BinaryRunner(executable: try #require(Self.groff)).run(["-mdoc", "-Tutf8", "-ww", "-P-cbou", directory.path("jobrun.1")])
        #expect(rendered.status == 0 && rendered.stderr.isEmpty, "\(rendered)")
        let text = rendered.stdout
        #expect(text.contains("JOBRUN(1)") && text.contains("EXIT STATUS") && text.contains("jobrun apply [options] [manifests ...]"), "\(text)")
    }
}
