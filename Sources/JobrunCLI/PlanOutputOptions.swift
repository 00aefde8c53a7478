import ArgumentParser

/// What `plan` writes and how its exit status reads, besides `-q` and `--events`.
struct PlanOutputOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Also list every slice with its action.")
    var verbose = false

    @Flag(name: .long, help: "Write the plan as a versioned JSON document to stdout instead of text.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Save the plan (with the manifests' digests and jobrun's version) for 'apply'.", valueName: "file"))
    var out: String?

    @Flag(name: .long, help: "Exit 0 when there is nothing to do, 2 when there is, 1 on error.")
    var detailedExitcode = false
}
