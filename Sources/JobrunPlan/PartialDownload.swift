import JobrunCore
import JobrunManifest

/// The on-disk form of an unfinished slice: `.NAME.jobrun-part` beside the destination, and for
/// slices large enough to be worth resuming, `.NAME.jobrun-meta` holding the validator that
/// proves a later range request continues the same representation.
public enum PartialDownload {
    /// Slices smaller than this restart from zero after a crash: a resume would save little and
    /// the metadata file would cost a file creation per slice.
    public static let resumableSize: Int64 = 1 << 20

    /// A partial download found on disk: the partial file's size and its metadata.
    public struct Found: Sendable {
        public var size: Int64
        public var metadata: Metadata

        /// Whether this partial may be continued for the slice with `identity` and declared
        /// `expectedSize`: it belongs to that identity, is not empty, is no longer than the slice,
        /// and was not cut from a representation of another size. One rule for `plan` (which says
        /// `resume`) and `apply` (which sends the range request).
        public func continues(identity: String, expectedSize: Int64?) -> Bool {
            guard size > 0, metadata.identity == identity else { return false }
            guard let expectedSize else { return true }
            if let total = metadata.totalSize, total != expectedSize { return false }
            return size <= expectedSize
        }
    }

    /// The partial download of `fileName` in the folder `directoryFD`: a non-empty regular
    /// partial file (not a link) with readable metadata; `nil` otherwise. Whether it may be
    /// continued is `continues`' call.
    public static func find(in directoryFD: Int32, for fileName: String) -> Found? {
        var st = stat()
        guard fstatat(directoryFD, partName(for: fileName), &st, AT_SYMLINK_NOFOLLOW) == 0,
            FileStatus.isRegularFile(mode: st.st_mode), st.st_size > 0,
            let metadata = Metadata.load(in: directoryFD, for: fileName)
        else { return nil }
        return Found(size: Int64(st.st_size), metadata: metadata)
    }

    public static func partName(for fileName: String) -> String { WorkingFileName.partial(for: fileName) }
    public static func metaName(for fileName: String) -> String { WorkingFileName.metadata(for: fileName) }

    /// The destination name a partial file's name belongs to (`partName`'s inverse); `nil` for
    /// any other name.
    public static func fileName(ofPart entryName: String) -> String? { WorkingFileName.fileName(ofPartial: entryName) }

    /// What a later attempt needs to resume: the identity it belongs to and the validator.
    public struct Metadata: Sendable, Hashable {
        public enum ValidatorKind: String, Sendable { case etag, lastModified = "last-modified" }
        public var identity: String
        public var validator: String
        public var validatorKind: ValidatorKind
        /// Total size of the representation, when known.
        public var totalSize: Int64?

        public init(identity: String, validator: String, validatorKind: ValidatorKind, totalSize: Int64?) {
            self.identity = identity
            self.validator = validator
            self.validatorKind = validatorKind
            self.totalSize = totalSize
        }

        /// The file's JSON form: one object with sorted keys, then a newline.
        private struct Stored: Codable {
            var formatVersion: Int
            var identity: String
            var totalSize: Int64?
            var validator: String
            var validatorKind: String

            enum CodingKeys: String, CodingKey {
                case formatVersion = "format_version", identity, totalSize = "total_size", validator, validatorKind = "validator_kind"
            }
        }

        public func encoded() -> [UInt8] {
            let stored = Stored(formatVersion: 1, identity: identity, totalSize: totalSize, validator: validator, validatorKind: validatorKind.rawValue)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(stored)) ?? Data()
            return Array(data) + [0x0A]
        }

        /// The metadata of `fileName` in the folder `directoryFD`, read without following a
        /// symbolic link; `nil` when it is absent, unreadable, larger than 64 KiB or torn.
        public static func load(in directoryFD: Int32, for fileName: String) -> Metadata? {
            let fd = openat(directoryFD, PartialDownload.metaName(for: fileName), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            guard case .success(let bytes) = FileReader.read(descriptor: fd, limit: 64 << 10), !bytes.isEmpty else { return nil }
            return decode(bytes)
        }

        /// `nil` for anything torn, foreign or from another format.
        public static func decode(_ bytes: [UInt8]) -> Metadata? {
            guard let stored = try? JSONDecoder().decode(Stored.self, from: Data(bytes)), stored.formatVersion == 1,
                let kind = ValidatorKind(rawValue: stored.validatorKind)
            else { return nil }
            return Metadata(identity: stored.identity, validator: stored.validator, validatorKind: kind, totalSize: stored.totalSize)
        }
    }
}
