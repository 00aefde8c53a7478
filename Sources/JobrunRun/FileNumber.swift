import JobrunCore
/// A file's device and inode: which file a name refers to.
struct FileNumber: Hashable {
    var device: UInt64
    var inode: UInt64

    init(_ status: stat) {
        device = UInt64(truncatingIfNeeded: status.st_dev)
        inode = UInt64(truncatingIfNeeded: status.st_ino)
    }

    init(_ identity: FileIdentity) {
        device = identity.device
        inode = identity.inode
    }
}
