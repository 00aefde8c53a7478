/// The bytes that keep a live display (a few lines redrawn in place) on a terminal, below the
/// lines a run prints.
///
/// Between draws the cursor rests, hidden, at the first column of the display's first line. A
/// redraw returns to the start of that line and clears it and everything below, prints
/// the lines that came in the meantime, then the display again. Whatever the display turned into
/// since it was drawn is cleared that way without counting rows: a shorter one, or a taller one
/// when a terminal that rewraps lines on resize (tmux, VTE, kitty) split its lines, since the
/// cursor moves with the line it is on. The display's lines must be narrower than the terminal
/// (``TerminalLine``), so that none wraps when drawn.
struct LiveRegion: Sendable {
    /// Text for one descriptor: the lines printed above the display go to stdout or stderr.
    struct Output: Sendable, Hashable {
        var fd: Int32
        var text: String

        init(fd: Int32, _ text: String) {
            self.fd = fd
            self.text = text
        }
    }

    /// Whether a display is on screen.
    enum State: Sendable, Hashable {
        /// No display; the cursor is as it was found (visible).
        case off
        /// A display is drawn and the cursor is hidden at its top left corner.
        case drawn
    }

    static let hideCursor = "\u{1B}[?25l"
    static let showCursor = "\u{1B}[?25h"
    /// Back to the display's first column, then erase its line and all below: erase the line
    /// (EL), save the cursor (DECSC), go down a row (CUD, which stops at the bottom), erase to the
    /// end of the screen (ED), restore the cursor (DECRC). ED straight from the top left corner
    /// would be a whole screen's erase, which tmux (`scroll-on-clear`) and some terminals keep
    /// in the scrollback: a copy of the display there at every redraw.
    static let clearBelow = "\r\u{1B}[K\u{1B}7\u{1B}[B\u{1B}[J\u{1B}8"

    /// The descriptor of the terminal the display is drawn on.
    let fd: Int32
    private(set) var state = State.off

    init(fd: Int32) {
        self.fd = fd
    }

    /// What to write, in order, to print `lines` (whole lines, each ending with a newline) above
    /// the display and draw `display` below them; an empty `display` removes it and shows the
    /// cursor again.
    mutating func update(printing lines: [Output], display: [String]) -> [Output] {
        var out: [Output] = []
        func emit(_ fd: Int32, _ text: String) {
            guard !text.isEmpty else { return }
            if let last = out.indices.last, out[last].fd == fd {
                out[last].text += text
            } else {
                out.append(Output(fd: fd, text))
            }
        }
        if state == .drawn { emit(fd, Self.clearBelow) }
        for line in lines { emit(line.fd, line.text) }
        if display.isEmpty {
            if state == .drawn { emit(fd, Self.showCursor) }
            state = .off
            return out
        }
        if state == .off { emit(fd, Self.hideCursor) }
        // No newline after the last line: at the bottom of the screen it would scroll one more.
        var text = display.joined(separator: "\n")
        if display.count > 1 { text += "\u{1B}[\(display.count - 1)A" }
        emit(fd, text + "\r")
        state = .drawn
        return out
    }

    /// What to write to remove the display and show the cursor again.
    mutating func remove() -> [Output] {
        update(printing: [], display: [])
    }
}
