/// The progress output a run gets, once `auto` is decided.
public enum ProgressOutput: Sendable, Hashable {
    /// A live display redrawn in place (``TerminalProgress``).
    case tty
    /// A timestamped line every `--progress-interval` (``PlainProgress``).
    case plain
    case none

    /// What decides the output.
    public struct Inputs: Sendable {
        /// `--progress`, when given.
        public var flag: ProgressMode?
        /// `-q`: problems and the summary only.
        public var isQuiet: Bool
        /// The process environment (`JOBRUN_PROGRESS`, `TERM`, `CI`).
        public var environment: [String: String]
        /// Whether stderr is a terminal (`isatty(2)`).
        public var isStderrTerminal: Bool

        public init(flag: ProgressMode?, isQuiet: Bool, environment: [String: String], isStderrTerminal: Bool) {
            self.flag = flag
            self.isQuiet = isQuiet
            self.environment = environment
            self.isStderrTerminal = isStderrTerminal
        }
    }

    /// `JOBRUN_PROGRESS` holds something else than a mode.
    public struct InvalidMode: Error, Sendable, CustomStringConvertible {
        public var value: String
        public var description: String {
            "JOBRUN_PROGRESS: '\(value)' is not a progress mode (\(ProgressMode.allCases.map(\.rawValue).joined(separator: ", ")))"
        }
    }

    /// The environment variable that sets the mode when `--progress` is not given.
    public static let variable = "JOBRUN_PROGRESS"

    /// The output for these inputs. The first that applies decides:
    ///
    /// | inputs | mode |
    /// |---|---|
    /// | `--progress M` | `M` |
    /// | `-q` | `none` (the environment's setting is for runs that show progress) |
    /// | `JOBRUN_PROGRESS=M` (set and not empty) | `M` |
    /// | otherwise | `auto` |
    ///
    /// and `auto` is `tty` when stderr is a terminal, `TERM` is set and not `dumb`, and `CI` is
    /// not set (to anything, even empty: CI runners capture a terminal's bytes into a log);
    /// otherwise `plain`.
    /// - Throws: ``InvalidMode`` when the variable decides and is not a mode.
    public static func choose(_ inputs: Inputs) throws(InvalidMode) -> ProgressOutput {
        let mode: ProgressMode
        if let flag = inputs.flag {
            mode = flag
        } else if inputs.isQuiet {
            mode = .none
        } else if let value = inputs.environment[variable], !value.isEmpty {
            guard let parsed = ProgressMode(rawValue: value) else { throw InvalidMode(value: value) }
            mode = parsed
        } else {
            mode = .auto
        }
        switch mode {
        case .tty: return .tty
        case .plain: return .plain
        case .none: return .none
        case .auto:
            let term = inputs.environment["TERM"] ?? ""
            let isWatched = inputs.isStderrTerminal && !term.isEmpty && term != "dumb" && inputs.environment["CI"] == nil
            return isWatched ? .tty : .plain
        }
    }
}
