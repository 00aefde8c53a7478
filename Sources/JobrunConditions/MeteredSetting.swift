/// How the run learns whether the network is metered: said by the user (`--metered yes|no`,
/// `JOBRUN_METERED`), or probed (`auto`, the default).
public enum MeteredSetting: String, Sendable, Hashable, CaseIterable {
    case yes, no, auto

    /// The environment variable that gives the setting when the option does not.
    public static let environmentVariable = "JOBRUN_METERED"

    /// The setting from the option, else from ``environmentVariable``, else `auto`.
    /// - Throws: when the variable holds anything but `yes`, `no` or `auto` (a typo must not
    ///   silently mean `auto`).
    public static func resolve(option: MeteredSetting?, environment: [String: String]) throws(InvalidValue) -> (setting: MeteredSetting, source: String) {
        if let option { return (option, "--metered \(option.rawValue)") }
        guard let text = environment[environmentVariable], !text.isEmpty else { return (.auto, "") }
        guard let setting = MeteredSetting(rawValue: text.lowercased()) else { throw InvalidValue(text: text) }
        return (setting, "\(environmentVariable)=\(setting.rawValue)")
    }

    /// `JOBRUN_METERED` holds a value that is not a setting.
    public struct InvalidValue: Error, Sendable, Hashable, CustomStringConvertible {
        public var text: String
        public var description: String {
            "\(MeteredSetting.environmentVariable)=\(text) is not one of yes, no, auto"
        }
    }

    /// The metered state this setting gives: as said, or what `probe` finds (`auto`).
    public func state(source: String, probe: () -> MeteredState) -> MeteredState {
        switch self {
        case .yes: MeteredState(value: .yes, source: source)
        case .no: MeteredState(value: .no, source: source)
        case .auto: probe()
        }
    }
}
