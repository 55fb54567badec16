// A malloc-counting LD_PRELOAD shim for the loadall driver's --count mode (counts.sh):
// counts every malloc/calloc/realloc/posix_memalign/aligned_alloc and exports the count as
// pagebench_shim_mallocs(), which the driver reads with dlsym around one drain.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdatomic.h>
static _Atomic unsigned long count_malloc, count_free, count_bytes;
extern void *__libc_malloc(size_t); extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t); extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
void *malloc(size_t n) { atomic_fetch_add_explicit(&count_malloc, 1, memory_order_relaxed); atomic_fetch_add_explicit(&count_bytes, n, memory_order_relaxed); return __libc_malloc(n); }
void free(void *p) { if (p) atomic_fetch_add_explicit(&count_free, 1, memory_order_relaxed); __libc_free(p); }
void *calloc(size_t a, size_t b) { atomic_fetch_add_explicit(&count_malloc, 1, memory_order_relaxed); atomic_fetch_add_explicit(&count_bytes, a*b, memory_order_relaxed); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { atomic_fetch_add_explicit(&count_malloc, 1, memory_order_relaxed); atomic_fetch_add_explicit(&count_bytes, n, memory_order_relaxed); return __libc_realloc(p, n); }
int posix_memalign(void **out, size_t al, size_t n) { atomic_fetch_add_explicit(&count_malloc, 1, memory_order_relaxed); atomic_fetch_add_explicit(&count_bytes, n, memory_order_relaxed); void *p = __libc_memalign(al, n); if (!p) return 12; *out = p; return 0; }
void *aligned_alloc(size_t al, size_t n) { atomic_fetch_add_explicit(&count_malloc, 1, memory_order_relaxed); atomic_fetch_add_explicit(&count_bytes, n, memory_order_relaxed); return __libc_memalign(al, n); }
unsigned long pagebench_shim_mallocs(void) { return atomic_load(&count_malloc); }
unsigned long pagebench_shim_frees(void) { return atomic_load(&count_free); }
unsigned long pagebench_shim_bytes(void) { return atomic_load(&count_bytes); }
