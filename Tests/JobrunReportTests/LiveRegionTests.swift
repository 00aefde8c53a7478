import JobrunCore
import Testing
@testable import JobrunReport

/// The live display's bytes, played on a small terminal model: whatever is printed and redrawn,
/// the screen (and what scrolled off it) reads as the lines printed, then the display, with the
/// cursor hidden at the display's top left corner; once removed, the lines alone and a visible
/// cursor. The real terminal, rewrapping on resize included, is tmux in the integration tests.
@Suite struct LiveRegionTests {
    /// A VT100-like screen of fixed size: printable ASCII, CR, LF (as a tty's output with
    /// `onlcr`), CUU, CUD, ED 0, EL 0, DECSC, DECRC, DECTCEM; SGR is ignored. Rows that scroll
    /// off the top are kept.
    struct Screen {
        let columns: Int
        let height: Int
        var rows: [[Character]]
        var scrolledOff: [String] = []
        var x = 0
        var y = 0
        var saved = (x: 0, y: 0)
        var isCursorVisible = true

        init(columns: Int, height: Int) {
            self.columns = columns
            self.height = height
            rows = Array(repeating: Array(repeating: " ", count: columns), count: height)
        }

        mutating func lineFeed() {
            if y == height - 1 {
                scrolledOff.append(Self.text(rows.removeFirst()))
                rows.append(Array(repeating: " ", count: columns))
            } else {
                y += 1
            }
        }

        static func text(_ row: [Character]) -> String {
            var s = String(row)
            while s.last == " " { s.removeLast() }
            return s
        }

        mutating func feed(_ output: String) {
            var chars = Array(output)[...]
            while let c = chars.popFirst() {
                switch c {
                case "\n":
                    x = 0
                    lineFeed()
                case "\r":
                    x = 0
                case "\u{1B}":
                    let next = chars.popFirst()
                    if next == "7" { saved = (x, y); continue }
                    if next == "8" { (x, y) = saved; continue }
                    guard next == "[" else { Issue.record("unexpected escape \(String(describing: next))"); return }
                    var parameter = ""
                    while let p = chars.first, p.isNumber || p == "?" { parameter.append(chars.removeFirst()) }
                    let n = Int(parameter) ?? 1
                    switch chars.popFirst() {
                    case "A": y = max(0, y - n)
                    case "B": y = min(height - 1, y + n)
                    case "J":
                        for col in x..<columns { rows[y][col] = " " }
                        for row in (y + 1)..<height { rows[row] = Array(repeating: " ", count: columns) }
                    case "K": for col in x..<columns { rows[y][col] = " " }
                    case "l" where parameter == "?25": isCursorVisible = false
                    case "h" where parameter == "?25": isCursorVisible = true
                    case "m": break
                    case let final: Issue.record("unexpected CSI \(parameter)\(String(describing: final))")
                    }
                default:
                    if x == columns {
                        x = 0
                        lineFeed()
                    }
                    rows[y][x] = c
                    x += 1
                }
            }
        }

        /// Everything that was ever on screen and still is, without trailing blank rows.
        var transcript: [String] {
            var all = scrolledOff + rows.map(Self.text)
            while all.last == "" { all.removeLast() }
            return all
        }
    }

    /// How `line` shows on a terminal `columns` wide: cut into rows.
    static func rows(of line: String, columns: Int) -> [String] {
        var rows: [String] = []
        var rest = Substring(line)
        repeat {
            rows.append(String(rest.prefix(columns)))
            rest = rest.dropFirst(columns)
        } while !rest.isEmpty
        return rows
    }

    /// Steps of every shape (no line, lines that wrap, exactly a row wide; no display, one to
    /// four lines, colored or not, cut to the width), on narrow and wide terminals, with the
    /// screen scrolling.
    @Test(arguments: [12, 20, 41, 80])
    func printsAboveAndRedrawsInPlace(columns: Int) {
        for run in 0..<20 {
            var screen = Screen(columns: columns, height: 12)
            var region = LiveRegion(fd: 2)
            var printed: [String] = []
            for step in 0..<(run % 7 + 5) {
                let seed = run * 31 + step * 7
                let lines = (0..<((seed / 3) % 4)).map { i in
                    let length = i == 1 ? columns : (seed * 7 + i * 13) % (2 * columns) + 1
                    return String(repeating: Character(UnicodeScalar(UInt8(97 + i))), count: length)
                }
                let display = (0..<((seed / 2 + run) % 5)).map { i in
                    var line = TerminalLine("#\(i)")
                    line.append(String(repeating: "=", count: (seed * 11 + i * 5) % 50), i % 2 == 0 ? .green : nil)
                    return line
                }
                let drawn = display.map { $0.rendered(columns: columns, color: true) }
                for piece in region.update(printing: lines.map { LiveRegion.Output(fd: 1, $0 + "\n") }, display: drawn) {
                    screen.feed(piece.text)
                }
                printed += lines.flatMap { Self.rows(of: $0, columns: columns) }
                var expected = printed + display.map { $0.rendered(columns: columns, color: false) }
                while expected.last == "" { expected.removeLast() }
                #expect(screen.transcript == expected, "run \(run), step \(step)")
                #expect(screen.isCursorVisible == display.isEmpty)
                if !display.isEmpty {
                    #expect(screen.x == 0 && screen.scrolledOff.count + screen.y == printed.count, "the cursor is not at the display's top")
                }
            }
            for piece in region.remove() { screen.feed(piece.text) }
            #expect(screen.transcript == printed)
            #expect(screen.isCursorVisible)
            #expect(region.state == .off)
        }
    }

    /// The bytes themselves: the cursor is hidden once, lines for stdout go apart from the
    /// display's, and the display is never erased from the top left corner with one ED.
    @Test func theSequences() {
        var region = LiveRegion(fd: 2)
        #expect(region.update(printing: [LiveRegion.Output(fd: 2, "before\n")], display: []) == [LiveRegion.Output(fd: 2, "before\n")])
        #expect(region.update(printing: [], display: ["a", "b", "c"]) == [LiveRegion.Output(fd: 2, "\u{1B}[?25la\nb\nc\u{1B}[2A\r")])
        #expect(
            region.update(printing: [LiveRegion.Output(fd: 1, "out\n")], display: ["d"]) == [
                LiveRegion.Output(fd: 2, LiveRegion.clearBelow),
                LiveRegion.Output(fd: 1, "out\n"),
                LiveRegion.Output(fd: 2, "d\r"),
            ])
        #expect(region.remove() == [LiveRegion.Output(fd: 2, LiveRegion.clearBelow + "\u{1B}[?25h")])
        #expect(region.remove().isEmpty)
        #expect(!LiveRegion.clearBelow.contains("\u{1B}[2J") && LiveRegion.clearBelow.hasPrefix("\r\u{1B}[K"))
    }
}
