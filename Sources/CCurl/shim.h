#include <curl/curl.h>

/* libcurl is not linked: JobrunFetch's CurlAPI loads it with dlopen the first time `apply` needs
   it (on the thread that prepares the libraries while the manifests are read), so `validate`,
   `plan` and `verify` never load it and its 28 dependent libraries, and `apply` loads them off
   its critical path. These typedefs give Swift the exact type of each entry point it looks up,
   taken from curl.h itself. curl_easy_setopt and curl_easy_getinfo are variadic, which Swift
   cannot call: the typed wrappers below call them through the looked-up pointer. No logic here. */
typedef __typeof__(curl_global_init) *jobrun_curl_global_init_fn;
typedef __typeof__(curl_version_info) *jobrun_curl_version_info_fn;
typedef __typeof__(curl_easy_init) *jobrun_curl_easy_init_fn;
typedef __typeof__(curl_easy_cleanup) *jobrun_curl_easy_cleanup_fn;
typedef __typeof__(curl_easy_strerror) *jobrun_curl_easy_strerror_fn;
typedef __typeof__(curl_easy_pause) *jobrun_curl_easy_pause_fn;
typedef __typeof__(curl_multi_init) *jobrun_curl_multi_init_fn;
typedef __typeof__(curl_multi_cleanup) *jobrun_curl_multi_cleanup_fn;
typedef __typeof__(curl_multi_add_handle) *jobrun_curl_multi_add_handle_fn;
typedef __typeof__(curl_multi_remove_handle) *jobrun_curl_multi_remove_handle_fn;
typedef __typeof__(curl_multi_perform) *jobrun_curl_multi_perform_fn;
typedef __typeof__(curl_multi_poll) *jobrun_curl_multi_poll_fn;
typedef __typeof__(curl_multi_wakeup) *jobrun_curl_multi_wakeup_fn;
typedef __typeof__(curl_multi_info_read) *jobrun_curl_multi_info_read_fn;
typedef __typeof__(curl_slist_append) *jobrun_curl_slist_append_fn;
typedef __typeof__(curl_slist_free_all) *jobrun_curl_slist_free_all_fn;

/* CURLVERSION_NOW is a macro naming an enum constant, which Swift does not import. */
static inline CURLversion jobrun_curl_version_now(void) { return CURLVERSION_NOW; }

/* `f` is the looked-up curl_easy_setopt or curl_easy_getinfo. */
#define JOBRUN_SETOPT ((CURLcode (*)(CURL *, CURLoption, ...))f)
#define JOBRUN_GETINFO ((CURLcode (*)(CURL *, CURLINFO, ...))f)
#define JOBRUN_MULTI_SETOPT ((CURLMcode (*)(CURLM *, CURLMoption, ...))f)
static inline CURLMcode jobrun_multi_setopt_long(void *f, CURLM *m, CURLMoption o, long v) { return JOBRUN_MULTI_SETOPT(m, o, v); }
static inline CURLcode jobrun_easy_setopt_long(void *f, CURL *h, CURLoption o, long v) { return JOBRUN_SETOPT(h, o, v); }
static inline CURLcode jobrun_easy_setopt_ptr(void *f, CURL *h, CURLoption o, void *v) { return JOBRUN_SETOPT(h, o, v); }
static inline CURLcode jobrun_easy_setopt_str(void *f, CURL *h, CURLoption o, const char *v) { return JOBRUN_SETOPT(h, o, v); }
static inline CURLcode jobrun_easy_setopt_slist(void *f, CURL *h, CURLoption o, struct curl_slist *v) { return JOBRUN_SETOPT(h, o, v); }
static inline CURLcode jobrun_easy_setopt_write(void *f, CURL *h, CURLoption o, size_t (*v)(char *, size_t, size_t, void *)) { return JOBRUN_SETOPT(h, o, v); }
static inline CURLcode jobrun_easy_setopt_prereq(void *f, CURL *h, CURLoption o, int (*v)(void *, char *, char *, int, int)) { return JOBRUN_SETOPT(h, o, v); }
static inline CURLcode jobrun_easy_setopt_xferinfo(void *f, CURL *h, CURLoption o, int (*v)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) { return JOBRUN_SETOPT(h, o, v); }
static inline CURLcode jobrun_easy_getinfo_long(void *f, CURL *h, CURLINFO i, long *v) { return JOBRUN_GETINFO(h, i, v); }
static inline CURLcode jobrun_easy_getinfo_off(void *f, CURL *h, CURLINFO i, curl_off_t *v) { return JOBRUN_GETINFO(h, i, v); }
#undef JOBRUN_SETOPT
#undef JOBRUN_GETINFO
