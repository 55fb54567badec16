#ifndef PAGEBENCH_CJEMALLOC_SHIM_H
#define PAGEBENCH_CJEMALLOC_SHIM_H

#if __has_include(<jemalloc/jemalloc.h>)
#include <jemalloc/jemalloc.h>
#else
#error "pagebench links jemalloc to measure memory, and its header was not found. Install it: 'apt-get update && apt-get install -y libjemalloc-dev' (Debian/Ubuntu), then build again."
#endif

#endif
