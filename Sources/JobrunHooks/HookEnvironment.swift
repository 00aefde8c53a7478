/// A hook's environment: a few of jobrun's own variables, then the `JOBRUN_*` ones that tell the
/// event. Nothing else passes: the environment jobrun runs in may hold the secrets its manifests'
/// headers name (`${TOKEN}`), and a hook must not see them.
///
/// | variable | from jobrun's environment |
/// |---|---|
/// | `PATH` | as it is (``defaultPath`` when unset), also where a bare program name is looked up |
/// | `HOME`, `LANG`, `LC_*`, `TZ` | as they are, when set |
/// | `JOBRUN_*` | never: only those of the event |
enum HookEnvironment {
    /// `PATH` when jobrun has none.
    static let defaultPath = "/usr/local/bin:/usr/bin:/bin"

    /// What passes from `parent`, sorted by name.
    static func inherited(from parent: [String: String]) -> [(name: String, value: String)] {
        var kept: [(name: String, value: String)] = parent.filter { name, _ in
            name == "PATH" || name == "HOME" || name == "LANG" || name == "TZ" || name.hasPrefix("LC_")
        }.map { ($0.key, $0.value) }
        if parent["PATH"] == nil { kept.append(("PATH", defaultPath)) }
        return kept.sorted { $0.name < $1.name }
    }

    /// `NAME=value` items: `inherited`, then `variables`.
    static func items(inherited: [(name: String, value: String)], variables: [(name: String, value: String)]) -> [String] {
        (inherited + variables).map { "\($0.name)=\($0.value)" }
    }

    /// The `PATH` of `inherited`.
    static func path(of inherited: [(name: String, value: String)]) -> String {
        inherited.first { $0.name == "PATH" }?.value ?? defaultPath
    }
}
