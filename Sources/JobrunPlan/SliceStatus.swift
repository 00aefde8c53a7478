public import JobrunCore
public import JobrunState
public import JobrunVerify

/// What `jobrun status` says of one slice's file, from a stat of it (never a read) and what the
/// mirror state recorded when its bytes were last proven.
public enum SliceStatus: String, Sendable, Hashable, CaseIterable {
    /// The file is what its record proved, and the record proves what the manifest expects now.
    case proven
    /// The file is there but is not what was proven: it changed since its record, the record
    /// does not prove every digest the manifest expects now, or its size is not the declared one.
    case changed
    /// The file is there and nothing proves it (no record, or one taken too soon after a change).
    case unproven
    /// No file.
    case missing
    /// Not a regular file (a link, a folder, …) or not readable.
    case error

    /// The status of a slice whose file's stat gave `check` (checked against the declared size
    /// at most, no digest) and `identity`, with `record` from the mirror state and the manifest
    /// expecting `size` and `digests`. A pure rule:
    ///
    /// | on disk                              | the record                                    | status     |
    /// |--------------------------------------|-----------------------------------------------|------------|
    /// | nothing                              | any                                           | `missing`  |
    /// | a link, folder, other non-file; unreadable | any                                     | `error`    |
    /// | a file of another size than declared | any                                           | `changed`  |
    /// | a file                               | none                                          | `unproven` |
    /// | a file                               | another identity (device, inode, size, times) | `changed`  |
    /// | a file                               | same identity, lacks an expected digest or has another value for it | `changed` |
    /// | a file                               | same identity, every expected digest, taken within a time step of a change | `unproven` (the next check reads it; ``FileIdentity/isSettled(at:)``) |
    /// | a file                               | same identity, every expected digest          | `proven`   |
    public static func classify(_ check: FileCheck, identity: FileIdentity?, record: ProvenFile?, size: Int64?, digests: [Digest]) -> SliceStatus {
        switch check {
        case .missing:
            return .missing
        case .notRegularFile, .ioError:
            return .error
        case .sizeMismatch, .digestMismatch:
            return .changed
        case .ok:
            // Without an identity the file cannot be matched with a record: nothing proves it.
            guard let record, let identity else { return .unproven }
            guard identity == record.file, record.proves(size: size, digests: digests) else { return .changed }
            // What the quick check would not trust is not proven either.
            return record.isSettled ? .proven : .unproven
        }
    }
}
