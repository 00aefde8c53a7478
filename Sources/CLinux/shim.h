// Linux system calls (and flags) that glibc declares only under _GNU_SOURCE, which Swift's
// Glibc module is built without (sync_file_range for early writeback, syncfs for the batched
// commit, pthread_setname_np for thread names, memfd_create for the lock holder's run id,
// malloc_trim from malloc.h, the SCHED_BATCH policy, the O_PATH flag for symlink-proof lookups),
// renameat2 for atomic publication (glibc 2.28), and openat2, which glibc does not wrap at all; and fstatfs's file system type, whose struct
// and function share a name Swift cannot tell apart. Declarations and inline wrappers (the
// symbols are glibc's); nothing here exists on macOS.
#ifndef JOBRUN_CLINUX_SHIM_H
#define JOBRUN_CLINUX_SHIM_H
#if defined(__linux__)
#include <sys/types.h>
#include <pthread.h>
#include <fcntl.h>
#include <unistd.h>
#include <malloc.h>
#include <sched.h>
#include <sys/vfs.h>

/// fstatfs(2)'s `f_type` (the file system's magic number, its 32 bits whatever the width of
/// `long`) for the file system of the open descriptor `fd`, or -1 when it cannot be told.
static inline long long jobrun_file_system_type(int fd) {
    struct statfs fs;
    return fstatfs(fd, &fs) == 0 ? (long long)(unsigned int)fs.f_type : -1;
}

/// sync_file_range(2): with SYNC_FILE_RANGE_WRITE, starts writeback of a range and returns
/// without waiting for it.
extern int sync_file_range(int fd, __off64_t offset, __off64_t nbytes, unsigned int flags);
#define JOBRUN_SYNC_FILE_RANGE_WRITE 2u

/// syncfs(2): flushes the file system that holds `fd`.
extern int syncfs(int fd);

/// pthread_setname_np(3): names a thread (at most 15 bytes) for ps, top, perf and debuggers.
extern int pthread_setname_np(pthread_t thread, const char *name);

/// memfd_create(2): an anonymous file whose name shows in /proc/PID/fd; the output lock names
/// its holder's run id this way (MFD_CLOEXEC is 1).
extern int memfd_create(const char *name, unsigned int flags);
#define JOBRUN_MFD_CLOEXEC 1u

/// SCHED_BATCH (sched(7)): a thread that is mildly disfavoured when it wakes, at its full share
/// of the CPU. sched.h names it only under _GNU_SOURCE; the value is Linux's ABI.
enum { JOBRUN_SCHED_BATCH = 3 };

/// O_PATH: a descriptor for lookups only (needs search permission on the parents, not read
/// permission on the folder). fcntl.h names it only under _GNU_SOURCE; __O_PATH is always there.
enum { JOBRUN_O_PATH = __O_PATH };

/// renameat2(2) (Linux 3.15, glibc 2.28): RENAME_EXCHANGE trades two names' places in one step;
/// RENAME_NOREPLACE renames only when the new name is free.
extern int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);
#define JOBRUN_RENAME_NOREPLACE 1u
#define JOBRUN_RENAME_EXCHANGE 2u

/// openat2(2) (Linux 5.6; glibc has no wrapper). Swift cannot call the variadic syscall(2);
/// this fixed-argument function can. 437 is __NR_openat2 on every architecture (older headers
/// lack SYS_openat2). `how` is a struct open_how of `size` bytes.
static inline long jobrun_openat2(int dirfd, const char *path, const void *how, size_t size) {
    return syscall(437, dirfd, path, how, size);
}

#endif
#endif
