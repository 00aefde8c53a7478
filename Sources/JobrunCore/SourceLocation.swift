/// A position in a source file: 1-based line and column, columns counted in Unicode scalars.
public struct SourceLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The file as the user named it (relative paths stay relative, so messages match what was typed).
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}
