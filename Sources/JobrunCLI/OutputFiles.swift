import JobrunCore

/// Report and plan files the user names: their folders are created as `mkdir -p` would.
enum OutputFiles {
    /// Creates the folder `path` will be written into. Errors surface when the file is written.
    static func prepareParent(of path: String) {
        let parent = SlashPath.split(path).folder
        guard !parent.isEmpty else { return }
        try? FileManager.default.createDirectory(atPath: String(parent), withIntermediateDirectories: true)
    }
}
