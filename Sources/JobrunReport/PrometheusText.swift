/// The Prometheus text exposition format (0.0.4), as node_exporter's textfile collector reads it:
/// a `# HELP` and `# TYPE` line per family, then its samples, label values escaped, no timestamps
/// (the collector refuses them).
public struct PrometheusText: Sendable {
    public enum Kind: String, Sendable {
        case gauge, counter
    }

    private var text = ""
    private var families: Set<String> = []

    public init() {}

    /// Starts the family `name`; its samples follow. A family is declared once: a second
    /// declaration of one name is ignored.
    public mutating func family(_ name: String, _ kind: Kind, help: String) {
        guard families.insert(name).inserted else { return }
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.format(value) + "\n"
    }

    public var bytes: [UInt8] { Array(text.utf8) }

    /// A label value: `\`, `"` and line feeds escaped.
    static func escapeLabel(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for c in value.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A `# HELP` text: `\` and line feeds escaped.
    static func escapeHelp(_ value: String) -> String {
        value.replacing("\\", with: "\\\\").replacing("\n", with: "\\n")
    }

    /// Whole numbers without a fraction; others with up to millisecond precision.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9e15 { return String(Int64(value)) }
        let thousandths = (value * 1000).rounded() / 1000
        return "\(thousandths)"
    }
}
