public import JobrunCore
import JobrunJSON
import JobrunSystem
import JobrunFiles

/// The copy of a resource's catalog kept from the last run that trusted it, in
/// `ROOT/.jobrun/catalogs/ID/`: the catalog (`catalog`), its signature (`signature`) and what
/// came with them (`meta.json`: the URLs, the validators for the next conditional request and
/// the catalog's SHA-256). `meta.json` is written last: a copy whose catalog does not match its
/// recorded digest is no copy.
public struct CatalogCache: Sendable {
    /// The folder of the resource's copy.
    public var folder: String

    public static let folderBelowRoot = MirrorStateFolder.name + "/catalogs"

    /// The copy of resource `id` under the output root `root` (absolute, or relative to the
    /// current directory).
    public init(root: String, resourceID id: String) {
        folder = root + "/" + Self.folderBelowRoot + "/" + id
    }

    /// A copy as read back.
    public struct Copy: Sendable {
        public var url: String
        public var signatureURL: String?
        public var validators: OriginValidators?
        public var catalog: [UInt8]
        public var signature: [UInt8]?
        /// What it was verified with (``CatalogResolver/trustIdentity(of:)``).
        public var trust: String?
        /// A Debian Release's `Date`, in seconds: a later Release may not be older.
        public var releaseDate: Int64?
        /// A Debian Release's `Valid-Until`, in seconds: past it, the copy is read anew (and refused).
        public var validUntil: Int64?
    }

    /// The kept copy of the catalog at `url`, when there is a whole one of that URL.
    public func read(url: String) -> Copy? {
        guard case .success(let metaBytes) = FileReader.read(folder + "/meta.json", limit: 1 << 20),
            case .success(let meta) = JSONParser.parse(metaBytes),
            meta["url"]?.stringValue == url, let sha256 = meta["sha256"]?.stringValue,
            case .success(let catalog) = FileReader.read(folder + "/catalog", limit: CatalogResolver.maxCatalogBytes),
            (try? Digest.compute(.sha256, of: catalog))?.hex == sha256
        else { return nil }
        let signatureURL = meta["signature_url"]?.stringValue
        var signature: [UInt8]?
        if signatureURL != nil {
            guard case .success(let bytes) = FileReader.read(folder + "/signature", limit: CatalogResolver.maxSignatureBytes) else { return nil }
            signature = bytes
        }
        let validators = OriginValidators(etag: meta["etag"]?.stringValue, lastModified: meta["last_modified"]?.stringValue)
        return Copy(
            url: url, signatureURL: signatureURL, validators: validators.isEmpty ? nil : validators, catalog: catalog, signature: signature,
            trust: meta["trust"]?.stringValue, releaseDate: meta["release_date"]?.intValue, validUntil: meta["valid_until"]?.intValue)
    }

    /// Keeps `copy` in place of the last: the catalog and signature first, each whole (written
    /// beside and renamed), `meta.json` last.
    public func write(_ copy: Copy) throws(FileWriteError) {
        try Self.makeFolders(folder)
        try AtomicFile.write(copy.catalog, to: folder + "/catalog")
        if let signature = copy.signature { try AtomicFile.write(signature, to: folder + "/signature") }
        var w = JSONWriter(pretty: true)
        w.beginObject()
        w.key("url")
        w.string(copy.url)
        if let signatureURL = copy.signatureURL {
            w.key("signature_url")
            w.string(signatureURL)
        }
        if let etag = copy.validators?.etag {
            w.key("etag")
            w.string(etag)
        }
        if let date = copy.validators?.lastModified {
            w.key("last_modified")
            w.string(date)
        }
        if let trust = copy.trust {
            w.key("trust")
            w.string(trust)
        }
        if let date = copy.releaseDate {
            w.key("release_date")
            w.int(date)
        }
        if let date = copy.validUntil {
            w.key("valid_until")
            w.int(date)
        }
        w.key("sha256")
        w.string((try? Digest.compute(.sha256, of: copy.catalog))?.hex ?? "")
        w.endObject()
        try AtomicFile.write(w.finish(), to: folder + "/meta.json")
    }

    /// A Debian index kept by its SHA-256 (the Release names it so), when it is whole.
    func readIndex(_ sha256: Digest) -> [UInt8]? {
        guard case .success(let bytes) = FileReader.read(folder + "/by-hash/" + sha256.hex, limit: CatalogResolver.maxCatalogBytes),
            (try? Digest.compute(.sha256, of: bytes)) == sha256
        else { return nil }
        return bytes
    }

    /// Keeps `indexes` by their SHA-256, and only them: those of earlier versions go.
    func writeIndexes(_ indexes: [(sha256: Digest, bytes: [UInt8])]) throws(FileWriteError) {
        let folder = self.folder + "/by-hash"
        try Self.makeFolders(folder)
        let kept = Set(indexes.map(\.sha256.hex))
        for index in indexes where readIndex(index.sha256) == nil { try AtomicFile.write(index.bytes, to: folder + "/" + index.sha256.hex) }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where !kept.contains(name) { unlink(folder + "/" + name) }
    }

    /// `path` and the folders above it that are missing.
    private static func makeFolders(_ path: String) throws(FileWriteError) {
        var made = ""
        for (i, part) in path.split(separator: "/", omittingEmptySubsequences: false).enumerated() {
            made += i == 0 ? String(part) : "/" + part
            guard !made.isEmpty, !part.isEmpty, part != "." else { continue }
            if mkdir(made, 0o755) != 0, errno != EEXIST { throw FileWriteError(.createTemporary, path: made, errno: errno) }
        }
    }
}
