import ArgumentParser

/// A command whose `--help` keeps its discussion to a few lines, so that the usage and the
/// options come first; its whole reference goes to the manual page (``ManualPage``) instead.
protocol DocumentedCommand: ParsableCommand {
    /// What the manual says of the command in place of its `--help` discussion: lines of at
    /// most about 72 characters, blank lines between paragraphs, examples indented.
    static var reference: String { get }
}
