/// What a slice's declaration lets jobrun prove about its file.
///
/// | declares          | integrity    | text word   | JSON value   |
/// |-------------------|--------------|-------------|--------------|
/// | a digest          | `.digest`    | —           | `digest`     |
/// | a size, no digest | `.sizeOnly`  | `size only` | `size_only`  |
/// | neither           | `.unverified`| `unverified`| `unverified` |
///
/// Only a digest proves the content; a size proves the length, nothing proves the rest.
public enum SliceIntegrity: String, Sendable, Hashable, CaseIterable {
    case digest
    case sizeOnly = "size_only"
    case unverified

    /// How reports call it in text: `size only`, `unverified` (`digest` for a digest).
    public var word: String {
        switch self {
        case .digest: "digest"
        case .sizeOnly: "size only"
        case .unverified: "unverified"
        }
    }

    /// Why a file of this integrity is not proven, as reports put it in parentheses.
    public var explanation: String {
        switch self {
        case .digest: "a digest is declared"
        case .sizeOnly: "no digest declared"
        case .unverified: "no digest or size declared"
        }
    }
}

extension Slice {
    public var integrity: SliceIntegrity {
        if !digests.isEmpty { return .digest }
        return size == nil ? .unverified : .sizeOnly
    }
}
