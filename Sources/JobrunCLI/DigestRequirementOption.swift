import ArgumentParser

/// `--require-digests` of `validate`, `plan` and `apply`: a slice without a digest is a manifest
/// error (`verify` has its own, which fails the slice instead).
struct DigestRequirementOption: ParsableArguments {
    @Flag(
        name: .customLong("require-digests"),
        help: "Make every slice that declares no digest an error at its line (exit 65), for CI that must prove every file.")
    var requireDigests = false
}
