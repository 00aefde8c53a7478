import ArgumentParser
import JobrunCore
import JobrunManifest

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check manifests and report every problem, without touching the mirror or the network.")

    @OptionGroup var manifestOptions: ManifestOptions

    @OptionGroup var digestOption: DigestRequirementOption

    func run() throws {
        let manifest = try manifestOptions.load(requiringDigests: digestOption.requireDigests)
        StandardOutput.write(
            "Valid: \(manifest.files.count) manifest\(manifest.files.count == 1 ? "" : "s"), \(manifest.resources.count) resource\(manifest.resources.count == 1 ? "" : "s"), \(manifest.sliceCount) slice\(manifest.sliceCount == 1 ? "" : "s").\n"
        )
    }
}

struct GraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Print the resource dependency graph in Graphviz DOT (an edge a -> b: b waits for a).",
        discussion: """
            With --resource, only those resources and the ones they depend on,
            directly or not; every manifest is still read and validated.
            """)

    @OptionGroup var manifestOptions: ManifestOptions

    @OptionGroup var resourceOptions: ResourceOptions

    func run() throws {
        let manifest = try resourceOptions.select(from: manifestOptions.load())
        StandardOutput.write(manifest.renderDOT())
    }
}
