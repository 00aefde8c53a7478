import JobrunCore
import JobrunManifest
import JobrunSystem

/// The slices a kept catalog yields, kept beside it (`slices`), so that a catalog that did not
/// change is not verified, decompressed and read again. The first line names what they were read
/// from and how (``CatalogResolver/readingKey(of:copy:resource:)``): other settings, another
/// copy or another key, and they are not used. One slice a line: `LINE<TAB>SIZE<TAB>DIGESTS<TAB>URLS<TAB>PATH`
/// (`-` for none; digests `alg:hex` separated by commas, URLs by spaces), then `end COUNT`.
extension CatalogCache {
    static let slicesHeader = "jobrun-catalog-slices 1 "

    func readSlices(key: String, file: String) -> [Slice]? {
        guard case .success(let bytes) = FileReader.read(folder + "/slices", limit: CatalogResolver.maxCatalogBytes) else { return nil }
        var slices: [Slice] = []
        var header: Substring?
        var ended = false
        var ok = true
        FileReader.forEachLine(in: bytes) { _, raw in
            guard ok, !ended else {
                ok = ok && raw.isEmpty
                return
            }
            let line = String(decoding: raw, as: UTF8.self)
            if header == nil {
                header = Substring(line)
                ok = line == Self.slicesHeader + key
                return
            }
            if line.hasPrefix("end ") {
                ended = true
                ok = Int(line.dropFirst(4)) == slices.count
                return
            }
            guard let slice = Self.slice(from: line, file: file) else {
                ok = false
                return
            }
            slices.append(slice)
        }
        return ok && ended ? slices : nil
    }

    func writeSlices(_ slices: [Slice], key: String) throws(FileWriteError) {
        try AtomicFile.write(to: folder + "/slices") { (append: ([UInt8]) throws(FileWriteError) -> Void) throws(FileWriteError) in
            try append(Array((Self.slicesHeader + key + "\n").utf8))
            var chunk = ""
            for slice in slices {
                let size = slice.size.map(String.init) ?? "-"
                let digests = slice.digests.isEmpty ? "-" : slice.digests.map { $0.algorithm.rawValue + ":" + $0.hex }.joined(separator: ",")
                let urls = slice.urls.isEmpty ? "-" : slice.urls.joined(separator: " ")
                chunk += "\(slice.location.line)\t\(size)\t\(digests)\t\(urls)\t\(slice.path)\n"
                if chunk.utf8.count > 1 << 20 {
                    try append(Array(chunk.utf8))
                    chunk = ""
                }
            }
            try append(Array((chunk + "end \(slices.count)\n").utf8))
        }
    }

    private static func slice(from line: String, file: String) -> Slice? {
        let fields = line.split(separator: "\t", maxSplits: 4, omittingEmptySubsequences: false)
        guard fields.count == 5, let lineNumber = Int(fields[0]), !fields[4].isEmpty else { return nil }
        var size: Int64?
        if fields[1] != "-" {
            guard let s = Int64(fields[1]), s >= 0 else { return nil }
            size = s
        }
        var digests: [Digest] = []
        if fields[2] != "-" {
            for item in fields[2].split(separator: ",") {
                let parts = item.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, let algorithm = DigestAlgorithm(rawValue: String(parts[0])), let digest = Digest(algorithm: algorithm, hex: parts[1])
                else { return nil }
                digests.append(digest)
            }
        }
        let urls = fields[3] == "-" ? [] : fields[3].split(separator: " ").map(String.init)
        return Slice(path: String(fields[4]), urls: urls, size: size, digests: digests, location: SourceLocation(file: file, line: lineNumber, column: 1))
    }
}
