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

    /// Seen with the coarse clock (its folder is stamped from it), an identity is settled once
    /// that clock has passed its change time, two seconds past a whole-second one; seen with the
    /// wall clock only, 50 ms past.
    @Test func settledByTheClockItWasSeenWith() {
        let file = FileIdentity(device: 1, inode: 2, size: 3, mtimeNanoseconds: 0, ctimeNanoseconds: 5_000_000_123)
        #expect(!file.isSettled(seen: LookTime(wall: 6_000_000_000, coarse: 5_000_000_123)), "the coarse clock still in the change's tick")
        #expect(file.isSettled(seen: LookTime(wall: 5_000_000_200, coarse: 5_000_000_124)))
        #expect(!file.isSettled(seen: LookTime(wall: 5_000_000_200)) && file.isSettled(seen: LookTime(wall: 5_050_000_123)))
        let seconds = FileIdentity(device: 1, inode: 2, size: 3, mtimeNanoseconds: 0, ctimeNanoseconds: 7_000_000_000)
        #expect(!seconds.isSettled(seen: LookTime(wall: 0, coarse: 8_999_999_999)) && seconds.isSettled(seen: LookTime(wall: 0, coarse: 9_000_000_000)))
        let unknown = FileIdentity(Self.status(mtime: 0, ctime: 10_413_792_000))
        #expect(!unknown.isSettled(seen: LookTime(wall: .max, coarse: .max)))
        // A file on another device than its folder's (mounted over its name) keeps the wall clock.
        let look = LookTime(wall: 1, coarse: 2)
        #expect(look.of(fileOn: 5, coarseDevice: 5) == look && look.of(fileOn: 6, coarseDevice: 5) == LookTime(wall: 1))
        #expect(look.of(fileOn: 5, coarseDevice: nil) == LookTime(wall: 1))
    }

    /// A folder on a local file system (tmpfs's /dev/shm here, as TMPDIR may be anything) is
    /// stamped from the coarse clock (Linux); /proc's is not.
    @Test func whichFoldersAreStampedFromTheCoarseClock() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(folder >= 0)
        defer { close(folder) }
        let proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if proc >= 0 { close(proc) } }
        #if os(Linux)
        var status = stat()
        try #require(fstat(folder, &status) == 0)
        if FileStampClock.coarseNow() != nil {
            #expect(FileStampClock.coarseDevice(ofFolder: folder).map { $0 == UInt64(status.st_dev) } ?? true, "the folder's own device")
            let shm = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            defer { if shm >= 0 { close(shm) } }
            if shm >= 0 { #expect(FileStampClock.coarseDevice(ofFolder: shm) != nil) }
            if proc >= 0 { #expect(FileStampClock.coarseDevice(ofFolder: proc) == nil) }
            let fine = FileIdentity.now()
            let coarse = try #require(FileStampClock.coarseNow())
            #expect(coarse <= FileIdentity.now() && coarse > fine - 1_000_000_000, "never ahead of the wall clock, and close behind")
        }
        #else
        #expect(FileStampClock.coarseDevice(ofFolder: folder) == nil && FileStampClock.coarseNow() == nil)
        #endif
    }
}
