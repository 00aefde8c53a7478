/// What `stat(2)` says about a path, for the few places that only ask one question.
public enum FileStatus {
    /// `path` exists and is a directory (following symbolic links, as `stat` does).
    public static func isDirectory(atPath path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }
}
