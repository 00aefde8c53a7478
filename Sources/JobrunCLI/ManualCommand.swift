import ArgumentParser
import JobrunCore
import JobrunOutcome
import JobrunSystem

/// `jobrun generate-manual` (hidden): writes the manual page `jobrun.1` (mdoc) to stdout,
/// rendered from the parser's own description of the commands (``ManualPage``), so the page
/// says what `--help` says; `make install` installs what it writes.
struct ManualCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate-manual",
        abstract: "Write the manual page jobrun.1 (mdoc) to stdout, rendered from the command line's own description.",
        shouldDisplay: false)

    func run() throws {
        let description: ManualPage.Description
        do {
            description = try JSONDecoder().decode(ManualPage.Description.self, from: Data(Self.parserDescription().utf8))
        } catch {
            StandardError.write("jobrun: error: cannot read the command line's description: \(error)\n")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        let page = ManualPage(
            root: description.command, references: Self.references(of: Jobrun.self, path: []),
            exitStatuses: Jobrun.exitStatuses, date: Self.date())
        StandardOutput.write(page.render(), what: "the manual page to stdout")
    }

    /// What argument-parser prints for `--experimental-dump-help`: the JSON description of every
    /// command, argument and option group.
    static func parserDescription() -> String {
        do {
            _ = try Jobrun.parseAsRoot(["--experimental-dump-help"])
            return ""
        } catch {
            return Jobrun.fullMessage(for: error)
        }
    }

    /// The whole reference of every ``DocumentedCommand`` below `command`, by its path.
    static func references(of command: any ParsableCommand.Type, path: [String]) -> [String: String] {
        var found: [String: String] = [:]
        if let documented = command as? any DocumentedCommand.Type { found[path.joined(separator: " ")] = documented.reference }
        for subcommand in command.configuration.subcommands {
            found.merge(references(of: subcommand, path: path + [subcommand.configuration.commandName ?? ""])) { first, _ in first }
        }
        return found
    }

    /// Today, or `SOURCE_DATE_EPOCH`'s day for a reproducible page: `November 28, 2026`.
    static func date() -> String {
        let seconds = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap { Int64($0) } ?? RunID.milliseconds() / 1_000
        let (year, month, day) = CivilDate.date(daysSince1970: CivilDate.floorDivide(seconds, 86_400))
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        return "\(months[Int(month) - 1]) \(day), \(year)"
    }
}
