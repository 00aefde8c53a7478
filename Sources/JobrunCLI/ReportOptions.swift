import ArgumentParser

/// The reports `apply` and `verify` write besides their text: `--json`, `--junit FILE` and
/// `--record-sums FILE` (``RecordSums``).
struct ReportOptions: ParsableArguments {
    @Flag(name: .long, help: "Write the results as a versioned JSON document, one record per slice, to stdout.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Write a JUnit XML report: a test suite per resource, a test case per slice.", valueName: "file"))
    var junit: String?

    @Option(
        name: .customLong("record-sums"),
        help: ArgumentHelp(
            "Write the SHA-256 of every file in place as a sha256sum list, paths relative to the resource's folder (usable as its 'slices_from'); '{id}' in the name is the resource id, needed with several resources.",
            valueName: "file"))
    var recordSums: String?

    func validate() throws {
        if recordSums?.isEmpty == true { throw ValidationError("--record-sums needs a file name") }
    }
}
