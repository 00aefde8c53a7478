internal import CYAML

extension YAMLParser {
    /// libyaml's version, e.g. `0.2.5`.
    public static var libraryVersion: String {
        guard let v = yaml_get_version_string() else { return "unknown" }
        return String(cString: v)
    }
}
