import JobrunCore

/// Report and plan files the user names: their folders are created as `mkdir -p` would.
enum OutputFiles {
    /// Creates the folder `path` will be written into. Errors surface when the file is written.
    static func prepareParent(of path: String) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let parent = String(path[..<slash])
        try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
    }
}
