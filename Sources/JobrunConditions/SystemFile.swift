import JobrunCore

/// The kernel's small text files: sysfs attributes, `/proc` entries.
enum SystemFile {
    /// The text of `path`; `nil` when it cannot be read (absent, not permitted, not a file).
    static func text(_ path: String) -> String? {
        guard case .success(let bytes) = FileReader.read(path, limit: 65_536) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
