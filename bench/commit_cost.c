/* commit_cost DIR N - what putting N files of 1 KiB in place costs in CPU on DIR's file system,
 * per file: "in place" as the curl tool does (create the final name, write, close), and "commit"
 * as jobrun's store does for a body it verified (create a temporary name exclusively, write,
 * fstat, close; rename into place; look at the final name). Each run writes into an empty
 * folder of its own under DIR and removes it afterwards.
 * Prints: in_place_us commit_us. Build: cc -O2 commit_cost.c */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double cpu(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static int fail(const char *what) { perror(what); exit(74); }

static void clean(int dir, const char *path, int n) {
    char name[64];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "f%07d.bin", i);
        unlinkat(dir, name, 0);
    }
    close(dir);
    rmdir(path);
}

/* CPU seconds per file of one way, in a new folder under `base`. */
static double run(const char *base, int n, int commit) {
    char path[4096], name[64], part[80], body[1024];
    memset(body, 'x', sizeof body);
    snprintf(path, sizeof path, "%s/commit-cost-%d-XXXXXX", base, commit);
    if (!mkdtemp(path)) fail("mkdtemp");
    int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) fail(path);
    struct stat st;
    double t0 = cpu();
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "f%07d.bin", i);
        if (!commit) {
            int fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd < 0 || write(fd, body, sizeof body) != (ssize_t)sizeof body || close(fd) != 0) fail(name);
            continue;
        }
        snprintf(part, sizeof part, ".%s.jobrun-part", name);
        int fd = openat(dir, part, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, body, sizeof body) != (ssize_t)sizeof body || fstat(fd, &st) != 0 || close(fd) != 0) fail(part);
        if (renameat(dir, part, dir, name) != 0 || fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) fail(name);
    }
    double spent = cpu() - t0;
    clean(dir, path, n);
    return spent / n;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s DIR N\n", argv[0]); return 64; }
    int n = atoi(argv[2]);
    if (n <= 0) { fprintf(stderr, "N must be a positive count\n"); return 64; }
    /* Alternately, twice each; the lower figure of each way. */
    double in_place = 1e9, commit = 1e9, t;
    for (int round = 0; round < 2; round++) {
        if ((t = run(argv[1], n, 0)) < in_place) in_place = t;
        if ((t = run(argv[1], n, 1)) < commit) commit = t;
    }
    printf("%.1f %.1f\n", in_place * 1e6, commit * 1e6);
    return 0;
}
