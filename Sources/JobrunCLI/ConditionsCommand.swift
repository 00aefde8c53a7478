import ArgumentParser
import JobrunConditions
import JobrunCore
import JobrunOutcome
import JobrunReport

struct ConditionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conditions",
        abstract: "Show what discretionary work waits for on this machine, and whether it could run now.",
        discussion: """
            Reads each condition the network policy weighs (docs/policy.md),
            with the source of its value:
              metered  the network is metered: --metered or JOBRUN_METERED,
                       else NetworkManager's Metered property on the system
                       D-Bus (GUESS_YES counts as yes)
              power    on battery or AC (/sys/class/power_supply, by
                       systemd's on_ac_power rules)
              busy     CPU pressure of jobrun's cgroup or the system, else
                       the load average against the online CPUs
            A value that cannot be read is 'unknown', and counts as good.
            Exit status 0 when discretionary work could run now, 75 when it
            would be deferred.
            """)

    @OptionGroup var conditionsOptions: ConditionsOptions

    @Flag(name: .long, help: "Write the conditions as a versioned JSON document to stdout instead of text.")
    var json = false

    func run() throws {
        let conditions = conditionsOptions.read()
        if json {
            StandardOutput.write(bytes: ConditionsReport.json(conditions, checkedAtMilliseconds: RunID.milliseconds()))
        } else {
            StandardOutput.write(ConditionsReport.text(conditions))
        }
        if !conditions.allowDiscretionaryWork { throw ExitCode(ExitStatus.locked.rawValue) }
    }
}
