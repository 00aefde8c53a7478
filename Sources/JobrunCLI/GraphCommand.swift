import ArgumentParser
import JobrunCore
import JobrunManifest

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
