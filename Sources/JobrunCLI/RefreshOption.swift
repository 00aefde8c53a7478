import ArgumentParser

/// `apply --refresh`: what `apply` does with a saved plan that no longer matches the manifests
/// or the mirror.
struct RefreshOption: ParsableArguments {
    @Flag(name: .long, help: "Apply a stale saved plan anyway, re-planning against the current manifests and mirror.")
    var refresh = false
}
