import JobrunCore

/// A terminal's size in character cells.
public struct TerminalSize: Sendable, Hashable {
    public var columns: Int
    public var rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    /// What a display assumes when the size cannot be asked (`--progress tty` into a file).
    public static let fallback = TerminalSize(columns: 80, rows: 24)

    /// The size of the terminal on `fd` (`TIOCGWINSZ`), `nil` when `fd` is no terminal or the
    /// terminal does not say. Cheap enough to ask before every redraw, which is how a resize is
    /// noticed without a SIGWINCH handler.
    public static func of(_ fd: Int32) -> TerminalSize? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return TerminalSize(columns: Int(size.ws_col), rows: Int(size.ws_row))
    }
}
