import JobrunCore
public import JobrunSystem

extension FileReader {
    /// Why a manifest or checksum list (read with the 256 MiB limit, `YAMLParser.maximumFileSize`)
    /// could not be read.
    public static func describe(_ failure: Failure) -> String {
        switch failure {
        case .system(let e): systemErrorText(e)
        case .notRegularFile: "not a regular file"
        case .directory: "is a directory"
        case .tooLarge(let size): "it is \(size) bytes; the limit is 256 MiB"
        }
    }
}
