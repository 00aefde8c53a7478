import Foundation
import JobrunCore
import JobrunManifest
import JobrunPlan

/// A plan saved by `jobrun plan --out FILE`, as `apply` reads it back.
struct SavedPlan {
    var jobrunVersion: String
    var manifestPaths: [String]
    var fingerprints: [String: String]
    var outputOverride: String?
    var allowFileURLs: Bool
    /// `resource id` → `slice path` → action.
    var actions: [String: [String: String]]

    /// The saved plan when `arguments` is a single plan file; `nil` for manifests.
    static func loadIfPlanFile(_ arguments: [String]) throws -> SavedPlan? {
        guard arguments.count == 1, let path = arguments.first else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            !path.hasSuffix(".yaml"), !path.hasSuffix(".yml"),
            let data = FileManager.default.contents(atPath: path), data.first == UInt8(ascii: "{")
        else { return nil }
        var stderr = StandardError()
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["kind"] as? String == "jobrun-plan"
        else {
            print("jobrun: error: '\(path)' is neither a manifest nor a plan saved by 'jobrun plan --out'", to: &stderr)
            throw ExitError(.manifestInvalid)
        }
        guard object["format_version"] as? Int == 1 else {
            print("jobrun: error: '\(path)' was saved in an unknown plan format", to: &stderr)
            throw ExitError(.manifestInvalid)
        }
        let manifests = object["manifests"] as? [[String: Any]] ?? []
        var fingerprints: [String: String] = [:]
        for m in manifests {
            if let p = m["path"] as? String { fingerprints[p] = m["sha256"] as? String ?? "" }
        }
        let options = object["options"] as? [String: Any] ?? [:]
        var actions: [String: [String: String]] = [:]
        for r in object["resources"] as? [[String: Any]] ?? [] {
            guard let id = r["id"] as? String else { continue }
            var byPath: [String: String] = [:]
            for s in r["slices"] as? [[String: Any]] ?? [] {
                if let p = s["path"] as? String, let a = s["action"] as? String { byPath[p] = a }
            }
            actions[id] = byPath
        }
        return SavedPlan(
            jobrunVersion: object["jobrun_version"] as? String ?? "", manifestPaths: manifests.compactMap { $0["path"] as? String },
            fingerprints: fingerprints, outputOverride: options["output"] as? String,
            allowFileURLs: options["allow_file_urls"] as? Bool ?? false, actions: actions)
    }

    /// Why the plan no longer describes what applying would do, or `nil` when it still does.
    func staleness(against manifest: Manifest, plan: Plan) -> String? {
        if jobrunVersion != JobrunVersion.current {
            return "it was made by jobrun \(jobrunVersion), this is \(JobrunVersion.current)"
        }
        for file in manifest.files where fingerprints[file.path] != file.fingerprint {
            return "'\(file.path)' changed since the plan was made"
        }
        var current: [String: [String: String]] = [:]
        for entry in plan.entries {
            var byPath: [String: String] = [:]
            for (s, d) in zip(entry.resource.slices, entry.decisions) { byPath[s.path] = d.action.rawValue }
            current[entry.resource.id] = byPath
        }
        if current != actions { return "the mirror changed since the plan was made" }
        return nil
    }
}
