#include "CCallgrind.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define PAGEBENCH_HAS_CALLGRIND 1
#endif
#endif

bool pagebench_callgrind_supported(void) {
#ifdef PAGEBENCH_HAS_CALLGRIND
    return true;
#else
    return false;
#endif
}

bool pagebench_running_on_valgrind(void) {
#ifdef PAGEBENCH_HAS_CALLGRIND
    return RUNNING_ON_VALGRIND != 0;
#else
    return false;
#endif
}

void pagebench_callgrind_start(void) {
#ifdef PAGEBENCH_HAS_CALLGRIND
    CALLGRIND_START_INSTRUMENTATION;
    CALLGRIND_ZERO_STATS;
#endif
}

void pagebench_callgrind_stop_and_dump(const char *label) {
#ifdef PAGEBENCH_HAS_CALLGRIND
    CALLGRIND_STOP_INSTRUMENTATION;
    CALLGRIND_DUMP_STATS_AT(label);
#else
    (void)label;
#endif
}
