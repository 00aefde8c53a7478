import JobrunCore

/// The manual page `jobrun.1` in mdoc, rendered from the command tree as the parser describes
/// it (`--experimental-dump-help`): every command's usage, abstract and options, grouped under
/// the titles `--help` shows, with a command's whole reference (``DocumentedCommand``) in place
/// of its short discussion.
struct ManualPage {
    /// The parser's description of the tool (argument-parser's ToolInfo, version 0).
    struct Description: Decodable {
        var command: Command
    }

    struct Command: Decodable {
        var commandName: String
        var abstract: String?
        var discussion: String?
        var shouldDisplay: Bool?
        var subcommands: [Command]?
        var arguments: [Argument]?
    }

    struct Argument: Decodable {
        struct Name: Decodable {
            var kind: String
            var name: String
        }

        /// `positional`, `option` or `flag`.
        var kind: String
        var shouldDisplay: Bool?
        var sectionTitle: String?
        var names: [Name]?
        var valueName: String?
        var abstract: String?
        var isOptional: Bool?
        var isRepeating: Bool?
    }

    var root: Command
    /// Each command's whole reference, by its path below the root (`apply`, `report merge`;
    /// the root's is `""`).
    var references: [String: String]
    var exitStatuses: String
    /// The page's date, as mdoc writes it: `November 28, 2026`.
    var date: String

    func render() -> String {
        var out = [
            ".Dd \(date)", ".Dt \(root.commandName.uppercased()) 1", ".Os",
            ".Sh NAME", ".Nm \(root.commandName)", ".Nd \(Self.escaped(Self.withoutPeriod(root.abstract ?? "")))",
            ".Sh SYNOPSIS", ".Nm", ".Ar command", ".Op Ar options", ".Op Ar manifests ...",
            ".Sh DESCRIPTION",
        ]
        out += Self.text(references[""] ?? root.discussion ?? "")
        out += Self.options(of: root, isRoot: true)
        out.append(".Sh COMMANDS")
        for command in root.subcommands ?? [] { out += section(command, path: [root.commandName]) }
        out += [".Sh EXIT STATUS"] + Self.text(exitStatuses.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        return out.joined(separator: "\n") + "\n"
    }

    /// A command's subsection, then its subcommands'.
    private func section(_ command: Command, path: [String]) -> [String] {
        // argument-parser's own `help` command is `--help` again.
        guard command.shouldDisplay ?? true, command.commandName != "help" else { return [] }
        let path = path + [command.commandName]
        var out = [".Ss \(path.joined(separator: " "))"]
        out += Self.sentences(command.abstract ?? "")
        out += [".Bd -literal -offset indent", Self.escaped(Self.synopsis(command, path: path)), ".Ed"]
        let reference = Self.text(references[path.dropFirst().joined(separator: " ")] ?? command.discussion ?? "")
        if !reference.isEmpty { out += [".Pp"] + reference }
        out += Self.options(of: command)
        for subcommand in command.subcommands ?? [] { out += section(subcommand, path: path) }
        return out
    }

    /// `jobrun apply [options] [manifests ...]`.
    static func synopsis(_ command: Command, path: [String]) -> String {
        let arguments = shown(command)
        var words = path
        if command.subcommands?.isEmpty == false { words.append("command") }
        if arguments.contains(where: { $0.kind != "positional" }) { words.append("[options]") }
        for argument in arguments where argument.kind == "positional" {
            var word = argument.valueName ?? "argument"
            if argument.isRepeating == true { word += " ..." }
            words.append(argument.isOptional == true ? "[\(word)]" : word)
        }
        return words.joined(separator: " ")
    }

    /// The arguments a reader sets: not hidden, and not `--help` (nor `--version` but the
    /// root's: argument-parser repeats it in every command).
    static func shown(_ command: Command, isRoot: Bool = false) -> [Argument] {
        let left = isRoot ? ["help"] : ["help", "version"]
        return (command.arguments ?? []).filter { argument in
            argument.shouldDisplay ?? true && !(argument.names ?? []).contains { left.contains($0.name) }
        }
    }

    /// A tagged list per section, in the order `--help` shows them: untitled arguments first
    /// ("Arguments"), then the titled sections, then untitled options ("Options").
    static func options(of command: Command, isRoot: Bool = false) -> [String] {
        let arguments = shown(command, isRoot: isRoot)
        func title(_ argument: Argument) -> String {
            argument.sectionTitle ?? (argument.kind == "positional" ? "Arguments" : "Options")
        }
        var titles: [String] = []
        for argument in arguments where !titles.contains(title(argument)) { titles.append(title(argument)) }
        let titled = titles.filter { $0 != "Arguments" && $0 != "Options" }
        var out: [String] = []
        for section in titles.filter({ $0 == "Arguments" }) + titled + titles.filter({ $0 == "Options" }) {
            out += [".Pp", ".Sy \(escaped(section))", ".Bl -tag -width Ds"]
            for argument in arguments where title(argument) == section {
                out.append(".It " + item(argument))
                out += sentences(argument.abstract ?? "")
            }
            out.append(".El")
        }
        return out
    }

    /// `Fl q , Fl -quiet` (short names first, as `--help` shows them), `Fl -output Ar dir`,
    /// `Ar manifests ...`.
    static func item(_ argument: Argument) -> String {
        let value = "Ar \(escaped(argument.valueName ?? "value"))"
        guard argument.kind != "positional" else { return value + (argument.isRepeating == true ? " ..." : "") }
        let all = argument.names ?? []
        let names = (all.filter { $0.kind == "short" } + all.filter { $0.kind != "short" }).map { name in
            name.kind == "short" ? "Fl \(escaped(name.name))" : "Fl -\(escaped(name.name))"
        }
        return names.joined(separator: " , ") + (argument.kind == "option" ? " " + value : "")
    }

    /// `text` as mdoc: a blank line is a paragraph break, indented lines (examples, tables) a
    /// literal display, other lines text to fill.
    static func text(_ text: String) -> [String] {
        var out: [String] = []
        var display: [Substring] = []
        func endDisplay() {
            guard !display.isEmpty else { return }
            let indent = display.map { $0.prefix { $0 == " " }.count }.min() ?? 0
            out += [".Bd -literal -offset indent"] + display.map { escaped(String($0.dropFirst(indent))) } + [".Ed"]
            display = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy(\.isWhitespace) {
                endDisplay()
                if out.last.map({ $0 != ".Pp" }) ?? false { out.append(".Pp") }
            } else if line.first == " " {
                display.append(line)
            } else {
                endDisplay()
                out += sentences(String(line))
            }
        }
        endDisplay()
        while out.last == ".Pp" { out.removeLast() }
        return out
    }

    /// `line` as text lines, a sentence's end ending a line: roff puts the space between sentences
    /// only there.
    static func sentences(_ line: String) -> [String] {
        var lines: [String] = []
        var current = ""
        for character in line {
            if character == " ", let last = current.last, ".!?".contains(last) {
                lines.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines.map(escaped)
    }

    /// `line` safe as roff text or a macro's argument: backslashes written as `\e`, and a
    /// leading `.` or `'` (which would make it a request) guarded by `\&`.
    static func escaped(_ line: String) -> String {
        let text = line.replacing("\\", with: "\\e").trimmingTrailingSpaces
        guard let first = text.first, first == "." || first == "'" else { return text }
        return "\\&" + text
    }

    static func withoutPeriod(_ text: String) -> String {
        text.hasSuffix(".") ? String(text.dropLast()) : text
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
