#include "CCycleCounter.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

bool pagebench_cycle_counter_is_invariant(void) {
#if defined(__x86_64__)
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) || eax < 0x80000007u) return false;
    if (!__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx)) return false;
    return (edx & (1u << 8)) != 0;
#elif defined(__aarch64__)
    return true;
#else
    return false;
#endif
}
