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
