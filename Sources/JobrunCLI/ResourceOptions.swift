import ArgumentParser
import JobrunCore
import JobrunManifest

/// `--resource ID` of `plan`, `apply`, `verify` and `graph`: only those resources and every
/// resource they depend on, directly or not (terraform's `-target`). Every manifest is still
/// read and validated.
struct ResourceOptions: ParsableArguments {
    @Option(
        name: .customLong("resource"),
        help: ArgumentHelp(
            "Only this resource and the resources it depends on, directly or not (repeatable).", valueName: "id"))
    var ids: [String] = []

    /// `manifest` narrowed to `--resource` (said on stderr); unchanged without it.
    /// - Throws: `ExitCode` 64, after a line per id that names no resource.
    func select(from manifest: Manifest) throws -> Manifest {
        switch manifest.selecting(ids: ids) {
        case .success(let narrowed):
            Self.announce(narrowed)
            return narrowed
        case .failure(let unknown):
            for entry in unknown.ids { StandardError.write("jobrun: error: --resource: \(entry); nothing was done\n") }
            throw ExitCode(ExitStatus.usage.rawValue)
        }
    }

    /// A saved plan applies the resources it was made for; `--resource` beside it is refused
    /// before anything is read, rather than silently ignored or half obeyed.
    /// - Throws: `ExitCode` 64 when `--resource` is given.
    func refuse(beside saved: SavedPlan) throws {
        guard !ids.isEmpty else { return }
        let madeFor = saved.selection.map { "--resource " + $0.joined(separator: ", ") } ?? "every resource"
        StandardError.write(
            "jobrun: error: --resource cannot be given with a saved plan, which applies the resources it was made for (\(madeFor)); run 'jobrun plan --resource ID --out FILE' for another selection; nothing was done\n"
        )
        throw ExitCode(ExitStatus.usage.rawValue)
    }

    /// `Selected 2 of 7 resources (--resource b): a, b.` on stderr when there is a selection:
    /// the resources planned, fetched or checked, in the manifests' order.
    static func announce(_ manifest: Manifest) {
        guard let line = selectionLine(manifest) else { return }
        StandardError.write(line + "\n")
    }

    static func selectionLine(_ manifest: Manifest) -> String? {
        guard let selection = manifest.selection else { return nil }
        let declared = manifest.declaredResources.count
        return
            "Selected \(manifest.resources.count) of \(declared) resource\(declared == 1 ? "" : "s") (--resource \(selection.requested.joined(separator: ", "))): \(manifest.resources.map(\.id).joined(separator: ", "))."
    }
}
