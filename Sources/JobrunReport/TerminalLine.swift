/// One line of a live display: pieces of text, some in a color, cut to the terminal's width
/// before it is colored so that escape sequences never count as columns.
struct TerminalLine: Sendable, Hashable {
    enum Color: Int, Sendable, Hashable {
        case red = 31
        case green = 32
        case yellow = 33
    }

    struct Span: Sendable, Hashable {
        var text: String
        var color: Color?
    }

    private(set) var spans: [Span] = []

    init(_ text: String = "") {
        if !text.isEmpty { spans.append(Span(text: text, color: nil)) }
    }

    mutating func append(_ text: String, _ color: Color? = nil) {
        spans.append(Span(text: text, color: color))
    }

    /// Columns the line takes. The display shows resource ids (ASCII by the manifest's rules),
    /// sizes and counts: one column per character.
    var width: Int { spans.reduce(0) { $0 + $1.text.unicodeScalars.count } }

    /// The plain text, without color.
    var text: String { spans.map(\.text).joined() }

    /// The line for a terminal `columns` wide: at most `columns - 1` characters (a line filling
    /// the last column makes some terminals wrap at the next character, others not), colored
    /// with SGR sequences when `color` is on, each reset right after its text.
    func rendered(columns: Int, color: Bool) -> String {
        var room = max(0, columns - 1)
        var out = ""
        for span in spans where room > 0 {
            let kept = String(String.UnicodeScalarView(span.text.unicodeScalars.prefix(room)))
            room -= kept.unicodeScalars.count
            if color, let c = span.color, !kept.isEmpty {
                out += "\u{1B}[\(c.rawValue)m" + kept + "\u{1B}[0m"
            } else {
                out += kept
            }
        }
        return out
    }
}
