import ArgumentParser

/// What `verify` checks besides each slice's size and digests, and what it may skip.
struct VerifyCheckOptions: ParsableArguments {
    @Flag(name: .long, help: "Also list files under the resources' folders that no manifest names.")
    var extra = false

    @Flag(name: .long, help: "Exit 1 when --extra finds files no manifest names.")
    var failOnExtra = false

    @Flag(name: .customLong("require-digests"), help: "Fail every slice that declares no digest (exit 1), even when its file passed.")
    var requireDigests = false

    @Flag(name: .long, help: "Do not read files unchanged since the mirror state last proved them (by default every byte is read).")
    var quick = false

    func validate() throws {
        if failOnExtra && !extra { throw ValidationError("--fail-on-extra needs --extra") }
    }
}
