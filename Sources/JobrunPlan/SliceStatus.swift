public import JobrunCore
public import JobrunState
public import JobrunFiles
public import JobrunSystem
public import JobrunManifest

/// What `jobrun status` says of one slice's file, from a stat of it (never a read) and what the
/// mirror state recorded when its bytes were last proven.
public enum SliceStatus: String, Sendable, Hashable, CaseIterable {
    /// The file is what its record proved, and the record proves what the manifest expects now.
    case proven
    /// The file is there but is not what was proven: it changed since its record, the record
    /// does not prove every digest the manifest expects now, or its size is not the declared one.
    case changed
    /// The file is another one than was proven (another device or inode) with the recorded size
    /// and modification time: a copy (`cp -a`), a restored backup or cache, a move across file
    /// systems. Its bytes are likely the proven ones, but nothing proves them until a `verify` or
    /// `plan` reads them again.
    case moved
    /// The file is there and nothing proves it (no record, or one taken too soon after a change).
    case unproven
    /// The file is what its record proved, but it has a `refresh:` with a `max_age` and its
    /// origin last vouched for it longer ago than that, or never: the next `apply` asks again.
    case stale
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
    /// | a file                               | another device or inode, the same size and modification time, every expected digest | `moved` |
    /// | a file                               | another identity otherwise (size, times; the same device and inode) | `changed`  |
    /// | a file                               | same identity, lacks an expected digest or has another value for it | `changed` |
    /// | a file                               | same identity, every expected digest, taken before a later write had to change it | `unproven` (the next check reads it; ``ProvenFile/isSettled``) |
    /// | a file                               | same identity, every expected digest          | `proven`   |
    /// | a file                               | same identity, every expected digest, `refresh` with a `max_age` its origin's last word is older than (or none) | `stale` |
    public static func classify(
        _ check: FileCheck, identity: FileIdentity?, record: ProvenFile?, size: Int64?, digests: [Digest], refresh: RefreshPolicy = .never,
        now: Int64 = 0
    ) -> SliceStatus {
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
            guard record.proves(size: size, digests: digests) else { return .changed }
            guard identity == record.file else { return isMoved(identity, from: record.file) ? .moved : .changed }
            // What the quick check would not trust is not proven either.
            guard record.isSettled else { return .unproven }
            if refresh.mode != .never, refresh.maxAge != nil, refresh.isDue(confirmedAt: record.confirmedAtMilliseconds, now: now) { return .stale }
            return .proven
        }
    }

    /// Whether `identity` is another file than `proven` (another device or inode) that kept its
    /// size and modification time, as a copy that keeps times or a restore makes (its change
    /// time is always new: the kernel sets it).
    static func isMoved(_ identity: FileIdentity, from proven: FileIdentity) -> Bool {
        (identity.device, identity.inode) != (proven.device, proven.inode) && identity.size == proven.size
            && identity.mtimeNanoseconds == proven.mtimeNanoseconds
    }
}
