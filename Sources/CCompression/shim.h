#include <lzma.h>
#include <zlib.h>

/* zlib's inflateInit2 is a macro; Swift sees the function behind it through this wrapper. */
static inline int jobrun_inflate_init2(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

/* liblzma's flags are UINT32_C(…) macros, which Swift does not import. */
static const uint32_t jobrun_lzma_concatenated = LZMA_CONCATENATED;
