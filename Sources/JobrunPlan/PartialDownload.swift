import Foundation

/// The on-disk form of an unfinished slice: `.NAME.jobrun-part` beside the destination, and for
/// slices large enough to be worth resuming, `.NAME.jobrun-meta` holding the validator that
/// proves a later range request continues the same representation.
public enum PartialDownload {
    /// Slices smaller than this restart from zero after a crash: a resume would save little and
    /// the metadata file would cost a file creation per slice.
    public static let resumableSize: Int64 = 1 << 20

    public static func partName(for fileName: String) -> String { ".\(fileName).jobrun-part" }
    public static func metaName(for fileName: String) -> String { ".\(fileName).jobrun-meta" }

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

        public func encoded() -> [UInt8] {
            var object: [String: Any] = ["format_version": 1, "identity": identity, "validator": validator, "validator_kind": validatorKind.rawValue]
            if let totalSize { object["total_size"] = totalSize }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return Array(data) + [0x0A]
        }

        /// `nil` for anything torn, foreign or from another format.
        public static func decode(_ bytes: [UInt8]) -> Metadata? {
            guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
                object["format_version"] as? Int == 1,
                let identity = object["identity"] as? String, let validator = object["validator"] as? String,
                let kindText = object["validator_kind"] as? String, let kind = ValidatorKind(rawValue: kindText)
            else { return nil }
            let total = (object["total_size"] as? NSNumber)?.int64Value
            return Metadata(identity: identity, validator: validator, validatorKind: kind, totalSize: total)
        }
    }
}
