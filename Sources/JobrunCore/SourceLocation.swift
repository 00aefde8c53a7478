/// A position in a source file: 1-based line and column, columns counted in Unicode scalars.
public struct SourceLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The file as the user named it (relative paths stay relative, so messages match what was typed).
    public var file: String
    // 32 bits each: every slice of a manifest keeps its location, and no input is 4 GiB long.
    private var storedLine: UInt32
    private var storedColumn: UInt32

    public init(file: String, line: Int, column: Int) {
        self.file = file
        storedLine = UInt32(clamping: line)
        storedColumn = UInt32(clamping: column)
    }

    public var line: Int {
        get { Int(storedLine) }
        set { storedLine = UInt32(clamping: newValue) }
    }

    public var column: Int {
        get { Int(storedColumn) }
        set { storedColumn = UInt32(clamping: newValue) }
    }

    public var description: String { "\(file):\(line):\(column)" }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}
