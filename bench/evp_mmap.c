/* evp_mmap FILE ALGO - the in-process OpenSSL baseline for `jobrun verify`: EVP digest of FILE
 * over one read-only mmap (MADV_SEQUENTIAL, EVP_DigestUpdate in 1 MiB steps), one core.
 * Prints: ALGO BYTES SECONDS(in-process) HEXDIGEST. Build: cc -O2 evp_mmap.c -lcrypto */
#define _GNU_SOURCE
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s FILE ALGO\n", argv[0]); return 64; }
    const EVP_MD *md = EVP_get_digestbyname(argv[2]);
    if (!md) { fprintf(stderr, "unknown digest %s\n", argv[2]); return 64; }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) { perror(argv[1]); return 66; }
    struct stat st;
    if (fstat(fd, &st) != 0) { perror("fstat"); return 74; }
    size_t total = (size_t)st.st_size, step = (size_t)1 << 20;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int outl = 0;
    double t0 = now();
    EVP_DigestInit_ex(ctx, md, NULL);
    if (total > 0) {
        unsigned char *p = mmap(NULL, total, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) { perror("mmap"); return 74; }
        madvise(p, total, MADV_SEQUENTIAL);
        for (size_t off = 0; off < total; off += step)
            EVP_DigestUpdate(ctx, p + off, total - off < step ? total - off : step);
        munmap(p, total);
    }
    EVP_DigestFinal_ex(ctx, out, &outl);
    double t = now() - t0;
    printf("%s %zu %.4f ", argv[2], total, t);
    for (unsigned i = 0; i < outl; i++) printf("%02x", out[i]);
    printf("\n");
    EVP_MD_CTX_free(ctx);
    close(fd);
    return 0;
}
