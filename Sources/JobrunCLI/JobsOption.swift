import ArgumentParser

/// `--jobs N` of `plan` and `verify`: how many threads hash files.
struct JobsOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Threads used to hash files (default: all cores).", valueName: "n"))
    var jobs: Int?

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    }
}
