#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JobrunSystem
import JobrunTestSupport
import Testing

@Suite struct FileIdentityTests {
    static func status(mtime: Int, ctime: Int) -> stat {
        var s = stat()
        s.st_size = 10
        #if canImport(Darwin)
        s.st_mtimespec = timespec(tv_sec: mtime, tv_nsec: 5)
        s.st_ctimespec = timespec(tv_sec: ctime, tv_nsec: 7)
        #else
        s.st_mtim = timespec(tv_sec: mtime, tv_nsec: 5)
        s.st_ctim = timespec(tv_sec: ctime, tv_nsec: 7)
        #endif
        return s
    }

    /// Anyone may give a file a modification time past 2262 (`touch -d 2300-01-01`), more than
    /// 64 bits of nanoseconds hold: the identity still tells two such times apart.
    @Test func aModificationTimeBeyond64BitsOfNanoseconds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(file: "far", contents: "0123456789")
        let year2300 = 10_413_792_000
        var times = [timespec(tv_sec: year2300, tv_nsec: 0), timespec(tv_sec: year2300, tv_nsec: 0)]
        try #require(utimensat(AT_FDCWD, path, &times, 0) == 0)
        var s = stat()
        try #require(stat(path, &s) == 0)
        let far = FileIdentity(s)
        times = [timespec(tv_sec: year2300 + 1, tv_nsec: 0), timespec(tv_sec: year2300 + 1, tv_nsec: 0)]
        try #require(utimensat(AT_FDCWD, path, &times, 0) == 0)
        try #require(stat(path, &s) == 0)
        let later = FileIdentity(s)
        #expect(far != later && !later.isSameWrite(as: far), "a second later is another write")
        #expect(later.isSettled(at: FileIdentity.now() + 1_000_000_000), "the change time is the kernel's, and in range")
        let before1677 = FileIdentity(Self.status(mtime: -10_000_000_000, ctime: 0))
        #expect(before1677 != FileIdentity(Self.status(mtime: -10_000_000_001, ctime: 0)))
    }

    /// A change time 64 bits of nanoseconds cannot hold (a clock set past 2262) never settles:
    /// the file is always read, never trusted by its identity.
    @Test func aChangeTimeBeyond64BitsNeverSettles() {
        let identity = FileIdentity(Self.status(mtime: 0, ctime: 10_413_792_000))
        #expect(identity.ctimeNanoseconds == FileIdentity.unknownTime && identity.settlesAt == .max)
        #expect(!identity.isSettled(at: .max))
        let inRange = FileIdentity(Self.status(mtime: 0, ctime: 1_700_000_000))
        #expect(inRange.ctimeNanoseconds == 1_700_000_000_000_000_007 && inRange.isSettled(at: inRange.ctimeNanoseconds + 50_000_000))
        let nearTheEnd = FileIdentity(device: 1, inode: 1, size: 0, mtimeNanoseconds: 0, ctimeNanoseconds: .max - 10)
        #expect(nearTheEnd.settlesAt == .max, "a step past it would not fit either")
    }
}
