import JobrunCore
public import JobrunSystem

extension FileReader {
    /// Why a file could not be read: a manifest or checksum list by default, read with the 256 MiB
    /// limit (`YAMLParser.maximumFileSize`), or another file read with `limit` bytes at most.
    public static func describe(_ failure: Failure, limit: Int = YAMLParser.maximumFileSize) -> String {
        switch failure {
        case .system(let e): systemErrorText(e)
        case .notRegularFile: "not a regular file"
        case .directory: "is a directory"
        case .tooLarge(let size): "it is \(size) bytes; the limit is \(limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : ByteCount(limit).description)"
        }
    }
}
