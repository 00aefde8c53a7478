// Linux system calls that glibc declares only under _GNU_SOURCE, which Swift's Glibc module is
// built without (sync_file_range for early writeback, syncfs for the batched commit,
// pthread_setname_np for thread names). Declarations only (the symbols are glibc's); nothing
// here exists on macOS.
#ifndef JOBRUN_CLINUX_SHIM_H
#define JOBRUN_CLINUX_SHIM_H
#if defined(__linux__)
#include <sys/types.h>
#include <pthread.h>

/// sync_file_range(2): with SYNC_FILE_RANGE_WRITE, starts writeback of a range and returns
/// without waiting for it.
extern int sync_file_range(int fd, __off64_t offset, __off64_t nbytes, unsigned int flags);
#define JOBRUN_SYNC_FILE_RANGE_WRITE 2u

/// syncfs(2): flushes the file system that holds `fd`.
extern int syncfs(int fd);

/// pthread_setname_np(3): names a thread (at most 15 bytes) for ps, top, perf and debuggers.
extern int pthread_setname_np(pthread_t thread, const char *name);

#endif
#endif
