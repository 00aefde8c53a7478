import Foundation
import JobrunTestSupport
import Testing

/// `jobrun --generate-completion-script bash|zsh|fish` (argument-parser's, from the command
/// line itself; `make install` installs them): each shell reads its script, and the values of
/// `--progress`, `--metered` and `--shard` are completed.
@Suite struct CompletionScriptTests {
    static let zsh = Executables.find("zsh")
    static let fish = Executables.find("fish")

    /// The script for `shell`, written to `jobrun.<shell>` in `directory`.
    static func script(_ shell: String, in directory: TemporaryDirectory) async throws -> String {
        let result = try await Harness.run(["--generate-completion-script", shell], in: directory.path)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        _ = try directory.write(file: "jobrun.\(shell)", contents: result.stdout)
        return result.stdout
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func everyScriptHasTheProgressModesAndNoHiddenCommand(shell: String) async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-completion")
        defer { directory.remove() }
        let script = try await Self.script(shell, in: directory)
        let modes = ["auto", "tty", "plain", "none"]
        // Each shell writes a list its own way: 'auto'$'\n''tty'… (bash), ('auto' 'tty' …) (zsh),
        // 'auto tty plain none' (fish).
        let written = [
            modes.map { "'\($0)'" }.joined(separator: "$'\\n'"), "(" + modes.map { "'\($0)'" }.joined(separator: " ") + ")",
            "'" + modes.joined(separator: " ") + "'",
        ]
        #expect(written.contains { script.contains($0) }, "\(script)")
        #expect(script.contains("--progress") && script.contains("metered") && !script.contains("generate-manual"))
    }

    /// What bash offers after a word, as its completion would: `_jobrun` called the way
    /// `complete -F` calls it.
    static func bashOffers(_ words: [String], in directory: TemporaryDirectory) async throws -> [String] {
        let driver = """
            source "$1"; shift
            COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            _jobrun "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"

            """
        let path = try directory.write(file: "drive.sh", contents: driver)
        let result = try await BinaryRunner(executable: "/bin/bash").run([path, directory.path("jobrun.bash"), "jobrun"] + words)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashReadsItsScriptAndCompletesTheValues() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-completion")
        defer { directory.remove() }
        _ = try await Self.script("bash", in: directory)
        let syntax = try await BinaryRunner(executable: "/bin/bash").run(["-n", directory.path("jobrun.bash")])
        #expect(syntax.status == 0 && syntax.stderr.isEmpty, "\(syntax)")
        #expect(try await Self.bashOffers(["apply", "--progress", ""], in: directory) == ["auto", "tty", "plain", "none"])
        #expect(try await Self.bashOffers(["apply", "--progress", "p"], in: directory) == ["plain"])
        #expect(try await Self.bashOffers(["plan", "--metered", ""], in: directory) == ["yes", "no", "auto"])
        #expect(try await Self.bashOffers(["verify", "--shard", ""], in: directory) == ["auto"])
        #expect(try await Self.bashOffers(["apply", "--deadline", ""], in: directory) == ["auto"])
        #expect(try await Self.bashOffers(["ap"], in: directory) == ["apply"])
    }

    @Test(.enabled(if: zsh != nil, "zsh is not installed: its script is only checked for the progress modes"))
    func zshReadsItsScript() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-completion")
        defer { directory.remove() }
        _ = try await Self.script("zsh", in: directory)
        let syntax = try await BinaryRunner(executable: try #require(Self.zsh)).run(["-n", directory.path("jobrun.zsh")])
        #expect(syntax.status == 0 && syntax.stderr.isEmpty, "\(syntax)")
    }

    @Test(.enabled(if: fish != nil, "fish is not installed: its script is only checked for the progress modes"))
    func fishReadsItsScript() async throws {
        let directory = try TemporaryDirectory(prefix: "jobrun-completion")
        defer { directory.remove() }
        _ = try await Self.script("fish", in: directory)
        let syntax = try await BinaryRunner(executable: try #require(Self.fish)).run(["--no-execute", directory.path("jobrun.fish")])
        #expect(syntax.status == 0 && syntax.stderr.isEmpty, "\(syntax)")
    }
}
