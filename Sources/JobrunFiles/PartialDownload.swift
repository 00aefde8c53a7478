import JobrunCore
import JobrunManifest
import JobrunSystem

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

        public init(size: Int64, metadata: Metadata) {
            self.size = size
            self.metadata = metadata
        }

        /// Whether this partial may be continued for the slice with `identity`, declared
        /// `expectedSize` and (`hasDigest`) a declared digest; ``obstacle(identity:expectedSize:hasDigest:)``
        /// says why not. One rule for `plan` (which says `resume`) and `apply` (which sends the
        /// range request, and keeps or removes a partial when an attempt ends).
        public func continues(identity: String, expectedSize: Int64?, hasDigest: Bool) -> Bool {
            obstacle(identity: identity, expectedSize: expectedSize, hasDigest: hasDigest) == nil
        }

        /// Why this partial cannot be continued, `nil` when it can:
        ///
        /// | partial                                                        | obstacle              |
        /// |----------------------------------------------------------------|-----------------------|
        /// | its metadata names another identity, and no digest decides     | `otherSlice`          |
        /// | neither a validator nor a declared digest proves its bytes     | `noValidatorNoDigest` |
        /// | its file's total, or its length, exceeds or differs from the size | `otherSize`        |
        ///
        /// Without a validator for this identity (none was sent, or the partial came from another
        /// URL of the same file: a moved `base_url`, another mirror) the slice's digest decides:
        /// a resumed body that fails it is discarded and fetched again from byte 0.
        public func obstacle(identity: String, expectedSize: Int64?, hasDigest: Bool) -> Obstacle? {
            guard size > 0 else { return .empty }
            guard metadata.identity == identity || hasDigest else { return .otherSlice }
            guard validator(for: identity) != nil || hasDigest else { return .noValidatorNoDigest }
            guard let expectedSize else { return nil }
            if let total = metadata.totalSize, total != expectedSize { return .otherSize }
            return size <= expectedSize ? nil : .otherSize
        }

        /// The validator that proves a range request at `identity` continues these bytes: the
        /// one recorded, only when they came from that URL (another's says nothing of it).
        public func validator(for identity: String) -> Validator? {
            metadata.identity == identity ? metadata.validator : nil
        }

        /// The representation's total size recorded with these bytes, only when they came from
        /// `identity` (another URL's file may be another size; the digest decides).
        public func totalSize(for identity: String) -> Int64? {
            metadata.identity == identity ? metadata.totalSize : nil
        }
    }

    /// Why a partial file cannot be continued (and is removed when an attempt ends).
    public enum Obstacle: UInt8, Sendable, Hashable, CustomStringConvertible {
        /// No metadata, or torn: a slice below ``resumableSize``, or a body of unknown length
        /// below it.
        case noMetadata
        case empty
        case otherSlice
        case noValidatorNoDigest
        case otherSize

        public var description: String {
            switch self {
            case .noMetadata: "no metadata to resume it by"
            case .empty: "empty"
            case .otherSlice: "left by another URL, and no digest to decide"
            case .noValidatorNoDigest: "no validator and no digest"
            case .otherSize: "of another size than the slice"
            }
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

    /// What is on disk for `fileName` in the folder `directoryFD`, judged for the slice with
    /// `identity`, declared `expectedSize` and (`hasDigest`) a declared digest.
    public enum Examined: Sendable {
        /// No partial file (or something other than a regular file, which is never touched).
        case absent
        case resumable(Found)
        case unresumable(Obstacle)
    }

    /// ``Examined`` for `fileName`: the rule of ``Found/obstacle(identity:expectedSize:hasDigest:)``,
    /// and a partial file without readable metadata, or an empty one, cannot be resumed either.
    public static func examine(in directoryFD: Int32, for fileName: String, identity: String, expectedSize: Int64?, hasDigest: Bool) -> Examined {
        var st = stat()
        guard fstatat(directoryFD, partName(for: fileName), &st, AT_SYMLINK_NOFOLLOW) == 0, FileStatus.isRegularFile(mode: st.st_mode) else { return .absent }
        guard st.st_size > 0 else { return .unresumable(.empty) }
        guard let metadata = Metadata.load(in: directoryFD, for: fileName) else { return .unresumable(.noMetadata) }
        let found = Found(size: Int64(st.st_size), metadata: metadata)
        if let obstacle = found.obstacle(identity: identity, expectedSize: expectedSize, hasDigest: hasDigest) { return .unresumable(obstacle) }
        return .resumable(found)
    }

    public static func partName(for fileName: String) -> String { WorkingFileName.partial(for: fileName) }
    public static func metaName(for fileName: String) -> String { WorkingFileName.metadata(for: fileName) }

    /// The destination name a partial file's name belongs to (`partName`'s inverse); `nil` for
    /// any other name.
    public static func fileName(ofPart entryName: String) -> String? { WorkingFileName.fileName(ofPartial: entryName) }

    public enum ValidatorKind: String, Sendable { case etag, lastModified = "last-modified" }

    /// What proves a range continues the same version of a file: a strong ETag or a Last-Modified.
    public struct Validator: Sendable, Hashable {
        public var value: String
        public var kind: ValidatorKind

        public init(value: String, kind: ValidatorKind) {
            self.value = value
            self.kind = kind
        }
    }

    /// What a later attempt needs to resume: the identity it belongs to and the validator, when
    /// the response had one (without, only a declared digest lets the partial be resumed).
    public struct Metadata: Sendable, Hashable {
        public var identity: String
        public var validator: Validator?
        /// Total size of the representation, when known.
        public var totalSize: Int64?

        public init(identity: String, validator: Validator?, totalSize: Int64?) {
            self.identity = identity
            self.validator = validator
            self.totalSize = totalSize
        }

        /// The file's JSON form: one object with sorted keys, then a newline. Without a validator
        /// both validator keys are left out (an older jobrun reads such a file as torn, and does
        /// not resume it).
        private struct Stored: Codable {
            var formatVersion: Int
            var identity: String
            var totalSize: Int64?
            var validator: String?
            var validatorKind: String?

            enum CodingKeys: String, CodingKey {
                case formatVersion = "format_version", identity, totalSize = "total_size", validator, validatorKind = "validator_kind"
            }
        }

        public func encoded() -> [UInt8] {
            let stored = Stored(
                formatVersion: 1, identity: identity, totalSize: totalSize, validator: validator?.value, validatorKind: validator?.kind.rawValue)
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
            guard let stored = try? JSONDecoder().decode(Stored.self, from: Data(bytes)), stored.formatVersion == 1 else { return nil }
            var validator: Validator?
            switch (stored.validator, stored.validatorKind) {
            case (nil, nil): break
            case (let value?, let kindName?):
                guard let kind = ValidatorKind(rawValue: kindName) else { return nil }
                validator = Validator(value: value, kind: kind)
            default: return nil
            }
            return Metadata(identity: stored.identity, validator: validator, totalSize: stored.totalSize)
        }
    }
}
