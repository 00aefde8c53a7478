import JobrunCore
import JobrunSystem

/// Where the manifest loader reads files: the file system, or files held in memory, so that a
/// fuzzer (or a test) drives the same reading, decoding and validation without writing files.
enum FileSource: Sendable {
    case fileSystem
    /// Files by path; any other path reads as missing.
    case memory([String: [UInt8]])

    /// A manifest or checksum list's bytes, with the 256 MiB limit (`YAMLParser.maximumFileSize`).
    func read(_ path: String) -> Result<[UInt8], FileReader.Failure> {
        switch self {
        case .fileSystem:
            return FileReader.read(path, limit: YAMLParser.maximumFileSize)
        case .memory(let files):
            guard let bytes = files[path] else { return .failure(.system(errno: ENOENT)) }
            if bytes.count > YAMLParser.maximumFileSize { return .failure(.tooLarge(size: Int64(bytes.count))) }
            return .success(bytes)
        }
    }

    /// Whether `path` names a file that can be read (`ca_file`).
    func isReadable(_ path: String) -> Bool {
        switch self {
        case .fileSystem: FileManager.default.isReadableFile(atPath: path)
        case .memory(let files): files[path] != nil
        }
    }
}

extension ManifestLoader {
    /// Loads manifests held in memory, in the given order, exactly as ``load(paths:options:)``
    /// loads files: every file they refer to (`slices_from`, `ca_file`) must be among `files`
    /// too, and reads as missing otherwise, so nothing is read from disk.
    static func load(memory files: [(path: String, bytes: [UInt8])], manifests: [String], options: Options = Options()) -> Result {
        var options = options
        options.files = .memory(Dictionary(files.map { ($0.path, $0.bytes) }, uniquingKeysWith: { first, _ in first }))
        return load(files: manifests, unreadable: [], options: options)
    }
}
