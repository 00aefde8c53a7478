import ArgumentParser

/// `-q` of `plan`, `verify` and `status` (`apply` has it among its progress options): the
/// commands that print a summary print only problems and that summary.
struct QuietOption: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print only problems and the summary.")
    var quiet = false
}
