import ArgumentParser
import JobrunCore
import JobrunManifest
import JobrunState
import JobrunFiles

/// How `plan` and `apply` use the output roots' mirror states (docs/state.md).
struct MirrorStateOptions: ParsableArguments {
    @Flag(name: .long, help: "Read and hash every file present, even those unchanged since the mirror state last proved them.")
    var rehash = false

    /// The stores of `manifest`'s output roots; a store that cannot be used is a warning.
    static func open(for manifest: Manifest, access: MirrorStates.Access) -> MirrorStates {
        MirrorStates(roots: manifest.resources.map(\.outputRoot), access: access) { warning in
            StandardError.write("jobrun: warning: \(warning)\n")
        }
    }

    /// What `states` recorded, for a check that recognizes unchanged files unless `rehash`.
    static func memory(of states: MirrorStates, recognizing: Bool) -> MirrorMemory {
        MirrorMemory(known: states.provenFiles(), recognizes: recognizing)
    }
}
