import JobrunCore
import JobrunSystem

/// One pass over a manifest's bytes before libyaml sees them: encoding problems (with exact
/// positions, which libyaml's reader cannot give), tab-indented lines, and whether libyaml's line
/// numbers can be trusted.
///
/// Lines are counted the way ``SourceFiles`` counts them (LF only, CRLF tolerated) and columns in
/// Unicode scalars, so every location lines up with the quoted source line.
struct YAMLPreScan {
    /// A line whose leading whitespace contains a tab; `column` is the first tab's.
    struct TabIndent {
        enum Role {
            /// Indentation before content: reported.
            case indentation
            /// A line of nothing but blanks: harmless unless libyaml trips over it.
            case blankLine
            /// Inside a multi-line scalar, where tabs are content: not a problem.
            case scalarContent
        }
        var line: UInt32
        var column: UInt32
        var role: Role
    }

    /// The first byte that is not UTF-8, or the first character YAML forbids.
    struct Problem {
        var line: UInt32
        var column: UInt32
        var message: String
    }

    /// 3 when the input starts with a UTF-8 byte order mark (libyaml skips it, and so do columns).
    private(set) var byteOrderMarkLength = 0
    /// Lines indented with tabs, in line order.
    var tabIndents: [TabIndent] = []
    private(set) var invalidUTF8: Problem?
    private(set) var nulByte: Problem?
    private(set) var controlCharacter: Problem?
    /// The input starts with a UTF-16 byte order mark: libyaml would decode it as UTF-16, so it is not run.
    private(set) var isUTF16 = false
    /// The input has a line break libyaml counts but ``SourceFiles`` does not (a lone CR, U+0085,
    /// U+2028, U+2029), so libyaml's line numbers must be translated (see ``YAMLLineTable``).
    private(set) var hasForeignLineBreaks = false

    var hasEncodingProblems: Bool { invalidUTF8 != nil || nulByte != nil || controlCharacter != nil }

    init(scanning bytes: UnsafeBufferPointer<UInt8>) {
        guard let p = bytes.baseAddress else { return }
        let n = bytes.count
        if n >= 2, (p[0] == 0xFF && p[1] == 0xFE) || (p[0] == 0xFE && p[1] == 0xFF) {
            isUTF16 = true
            invalidUTF8 = Problem(
                line: 1, column: 1,
                message: "invalid UTF-8 (the file starts with a UTF-16 byte order mark); save the manifest as UTF-8")
            return
        }
        byteOrderMarkLength = FileReader.byteOrderMarkLength(UnsafeBufferPointer(start: p, count: min(n, 3)))

        var i = byteOrderMarkLength
        var line: UInt32 = 1
        var lineStart = i
        nextLine: while i < n {
            // Leading whitespace. A tab here is indentation unless the line is blank.
            var firstTab = -1
            while i < n {
                let c = p[i]
                if c == 0x20 {
                    i += 1
                } else if c == 0x09 {
                    if firstTab < 0 { firstTab = i }
                    i += 1
                } else {
                    break
                }
            }
            if firstTab >= 0 {
                let isBlank = i == n || p[i] == 0x0A || p[i] == 0x0D
                // Only spaces and tabs precede it, all one byte wide.
                tabIndents.append(
                    TabIndent(
                        line: line, column: UInt32(truncatingIfNeeded: firstTab - lineStart + 1),
                        role: isBlank ? .blankLine : .indentation))
            }
            // The rest of the line.
            while i < n {
                // Eight printable ASCII bytes at a time: no byte with the high bit set, none below
                // 0x20 (the subtraction borrows) and no 0x7F (the addition reaches 0x80).
                while i + 8 <= n {
                    let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
                    let suspicious = (w | (w &+ 0x0101_0101_0101_0101) | ((w &- 0x2020_2020_2020_2020) & ~w))
                    if suspicious & 0x8080_8080_8080_8080 != 0 { break }
                    i += 8
                }
                guard i < n else { break nextLine }
                let c = p[i]
                if c >= 0x20 && c < 0x7F {
                    i += 1
                } else if c == 0x0A {
                    i += 1
                    line += 1
                    lineStart = i
                    continue nextLine
                } else if c == 0x09 {
                    i += 1
                } else if c == 0x0D {
                    if i + 1 >= n || p[i + 1] != 0x0A { hasForeignLineBreaks = true }
                    i += 1
                } else if c < 0x80 {
                    if c == 0 {
                        if nulByte == nil {
                            nulByte = Problem(
                                line: line, column: Self.column(of: i, lineStart: lineStart, in: p),
                                message: "NUL byte in manifest; a manifest must be text, not binary data")
                        }
                    } else {
                        noteControlCharacter(UInt32(c), line: line, column: Self.column(of: i, lineStart: lineStart, in: p))
                    }
                    i += 1
                } else {
                    switch Self.decode(p, at: i, count: n) {
                    case .scalar(let value, let length):
                        if value == 0x85 || value == 0x2028 || value == 0x2029 {
                            hasForeignLineBreaks = true
                        } else if value < 0xA0 || value == 0xFFFE || value == 0xFFFF {
                            noteControlCharacter(value, line: line, column: Self.column(of: i, lineStart: lineStart, in: p))
                        }
                        i += length
                    case .invalid(let reason):
                        if invalidUTF8 == nil {
                            let hex = "0x" + String(p[i], radix: 16, uppercase: true)
                            invalidUTF8 = Problem(
                                line: line, column: Self.column(of: i, lineStart: lineStart, in: p),
                                message: "invalid UTF-8 (byte \(hex) \(reason)); a manifest must be UTF-8 text")
                        }
                        i += 1
                    }
                }
            }
        }
    }

    /// At most this many tab-indented lines are reported one by one; the rest are summed up.
    static let maximumTabDiagnostics = 20

    /// Marks the tab-indented lines after `startLine` and before `end` as scalar content, where
    /// libyaml accepts tabs (a literal block, a folded quoted string).
    mutating func exemptTabIndents(afterLine startLine: UInt32, before end: (line: UInt32, column: UInt32)) {
        var low = 0
        var high = tabIndents.count
        while low < high {
            let mid = (low + high) / 2
            if tabIndents[mid].line <= startLine { low = mid + 1 } else { high = mid }
        }
        var k = low
        while k < tabIndents.count, (tabIndents[k].line, tabIndents[k].column) < end {
            tabIndents[k].role = .scalarContent
            k += 1
        }
    }

    /// The tab in the leading whitespace of `line`, unless it is scalar content.
    func tabIndent(onLine line: UInt32) -> TabIndent? {
        var low = 0
        var high = tabIndents.count
        while low < high {
            let mid = (low + high) / 2
            if tabIndents[mid].line < line { low = mid + 1 } else { high = mid }
        }
        guard low < tabIndents.count, tabIndents[low].line == line, tabIndents[low].role != .scalarContent else { return nil }
        return tabIndents[low]
    }

    static let tabMessage = "tab character in indentation; YAML indents with spaces"

    /// Encoding problems and tab-indented lines as diagnostics.
    func diagnostics(file: String) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for problem in [invalidUTF8, nulByte, controlCharacter] {
            guard let problem else { continue }
            out.append(.error(problem.message, at: SourceLocation(file: file, line: Int(problem.line), column: Int(problem.column))))
        }
        var reported = 0
        for tab in tabIndents where tab.role == .indentation {
            let location = SourceLocation(file: file, line: Int(tab.line), column: Int(tab.column))
            if reported == Self.maximumTabDiagnostics {
                let rest = tabIndents.count { $0.role == .indentation } - reported
                out.append(.error("… and \(rest) more line\(rest == 1 ? "" : "s") with a tab character in indentation", at: location))
                break
            }
            out.append(.error(Self.tabMessage, at: location))
            reported += 1
        }
        return out
    }

    private mutating func noteControlCharacter(_ value: UInt32, line: UInt32, column: UInt32) {
        guard controlCharacter == nil else { return }
        var hex = String(value, radix: 16, uppercase: true)
        while hex.count < 4 { hex = "0" + hex }
        let what = value >= 0xFFFE ? "character" : "control character"
        controlCharacter = Problem(
            line: line, column: column,
            message: "\(what) U+\(hex) is not allowed in YAML; write it as an escape in a double-quoted string")
    }

    /// 1-based column of byte `offset`: Unicode scalars since the line start (continuation bytes don't count).
    private static func column(of offset: Int, lineStart: Int, in p: UnsafePointer<UInt8>) -> UInt32 {
        var column: UInt32 = 1
        var k = lineStart
        while k < offset {
            if p[k] & 0xC0 != 0x80 { column += 1 }
            k += 1
        }
        return column
    }

    private enum Decoded {
        case scalar(UInt32, length: Int)
        case invalid(String)
    }

    /// Decodes one multi-byte sequence starting at `i` (whose byte is ≥ 0x80), following the
    /// well-formed table of Unicode §3.9 (no overlongs, no surrogates, nothing past U+10FFFF).
    private static func decode(_ p: UnsafePointer<UInt8>, at i: Int, count n: Int) -> Decoded {
        let lead = p[i]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        var tooLow = "starts a sequence that is cut short"
        var tooHigh = tooLow
        switch lead {
        case 0x80...0xBF: return .invalid("is a continuation byte without a lead byte")
        case 0xC0, 0xC1: return .invalid("starts an overlong encoding")
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0; tooLow = "starts an overlong encoding"
        case 0xED: length = 3; high = 0x9F; tooHigh = "starts an encoded UTF-16 surrogate"
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; low = 0x90; tooLow = "starts an overlong encoding"
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F; tooHigh = "starts a code point beyond U+10FFFF"
        default: return .invalid("never appears in UTF-8")
        }
        guard i + 1 < n else { return .invalid("starts a sequence that is cut short") }
        let second = p[i + 1]
        if second < low { return .invalid(second >= 0x80 ? tooLow : "starts a sequence that is cut short") }
        if second > high { return .invalid(second <= 0xBF ? tooHigh : "starts a sequence that is cut short") }
        var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        value = value << 6 | UInt32(second & 0x3F)
        var k = 2
        while k < length {
            guard i + k < n, p[i + k] & 0xC0 == 0x80 else { return .invalid("starts a sequence that is cut short") }
            value = value << 6 | UInt32(p[i + k] & 0x3F)
            k += 1
        }
        return .scalar(value, length: length)
    }
}

/// Translates libyaml's character index into LF-counted lines, for inputs whose other line
/// breaks (lone CR, NEL, LS, PS) make libyaml's own line numbers disagree with the quoted source.
struct YAMLLineTable {
    /// The character index (libyaml's `mark.index`: Unicode scalars after the byte order mark) at
    /// which each line starts.
    private var lineStarts: [Int] = [0]

    init(bytes: UnsafeBufferPointer<UInt8>, byteOrderMarkLength: Int) {
        var characters = 0
        var i = byteOrderMarkLength
        while i < bytes.count {
            let c = bytes[i]
            if c & 0xC0 != 0x80 { characters += 1 }
            if c == 0x0A { lineStarts.append(characters) }
            i += 1
        }
    }

    /// 1-based line and column of the character at `index`.
    func position(ofCharacter index: Int) -> (line: UInt32, column: UInt32) {
        // The last line start ≤ index.
        var low = 0
        var high = lineStarts.count
        while high - low > 1 {
            let mid = (low + high) / 2
            if lineStarts[mid] <= index { low = mid } else { high = mid }
        }
        return (UInt32(truncatingIfNeeded: low + 1), UInt32(truncatingIfNeeded: index - lineStarts[low] + 1))
    }
}
