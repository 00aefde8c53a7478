import Testing
@testable import JobrunReport

/// `--progress`, `-q`, `JOBRUN_PROGRESS` and the terminal decide the progress output, by the
/// table in ``ProgressOutput/choose(_:)``.
@Suite struct ProgressOutputTests {
    static func choose(
        flag: ProgressMode? = nil, quiet: Bool = false, _ environment: [String: String] = ["TERM": "xterm-256color"], terminal: Bool = true
    ) throws(ProgressOutput.InvalidMode) -> ProgressOutput {
        try ProgressOutput.choose(ProgressOutput.Inputs(flag: flag, isQuiet: quiet, environment: environment, isStderrTerminal: terminal))
    }

    /// `auto` over every combination of its inputs: `tty` exactly when stderr is a terminal,
    /// `TERM` is set, not empty and not `dumb`, and `CI` is absent.
    @Test func autoIsTTYOnlyOnAWatchedTerminal() throws {
        let terms: [String?] = [nil, "", "dumb", "xterm-256color", "screen", "linux"]
        let cis: [String?] = [nil, "", "true", "false"]
        for isTerminal in [false, true] {
            for term in terms {
                for ci in cis {
                    var environment: [String: String] = [:]
                    environment["TERM"] = term
                    environment["CI"] = ci
                    let watched = isTerminal && term != nil && term != "" && term != "dumb" && ci == nil
                    for flag in [ProgressMode?.none, .auto] {
                        let output = try Self.choose(flag: flag, environment, terminal: isTerminal)
                        #expect(output == (watched ? .tty : .plain), "terminal \(isTerminal), TERM \(term ?? "unset"), CI \(ci ?? "unset")")
                    }
                }
            }
        }
    }

    /// The flag wins over everything; `-q` over the environment; the environment over `auto`.
    @Test func precedence() throws {
        let modes: [(ProgressMode, ProgressOutput)] = [(.tty, .tty), (.plain, .plain), (.none, .none)]
        for (mode, output) in modes {
            for quiet in [false, true] {
                for environment in [[:], ["JOBRUN_PROGRESS": "plain"], ["JOBRUN_PROGRESS": "bogus"], ["CI": "1", "TERM": "dumb"]] {
                    #expect(try Self.choose(flag: mode, quiet: quiet, environment, terminal: false) == output)
                }
            }
            #expect(try Self.choose(["JOBRUN_PROGRESS": mode.rawValue, "TERM": "xterm"]) == output)
            #expect(try Self.choose(quiet: true, ["JOBRUN_PROGRESS": mode.rawValue, "TERM": "xterm"]) == ProgressOutput.none)
        }
        #expect(try Self.choose(quiet: true) == ProgressOutput.none)
        #expect(try Self.choose(quiet: true, ["JOBRUN_PROGRESS": "bogus"]) == ProgressOutput.none)
        // Set but empty is unset.
        #expect(try Self.choose(["JOBRUN_PROGRESS": "", "TERM": "xterm"]) == .tty)
        #expect(try Self.choose(["JOBRUN_PROGRESS": "auto", "TERM": "xterm"], terminal: false) == .plain)
    }

    @Test func anUnknownModeInTheEnvironmentIsRefusedWhenItDecides() {
        #expect(throws: ProgressOutput.InvalidMode.self) { try Self.choose(["JOBRUN_PROGRESS": "TTY"]) }
        do {
            _ = try Self.choose(["JOBRUN_PROGRESS": "fancy"])
            Issue.record("accepted")
        } catch {
            #expect(error.description == "JOBRUN_PROGRESS: 'fancy' is not a progress mode (auto, tty, plain, none)")
        }
    }

    @Test func noColorIsAnyNonEmptyValue() {
        #expect(TerminalProgress.isColorWanted(environment: [:]))
        #expect(TerminalProgress.isColorWanted(environment: ["NO_COLOR": ""]))
        for value in ["1", "0", "false", "yes"] {
            #expect(!TerminalProgress.isColorWanted(environment: ["NO_COLOR": value]))
        }
    }
}
