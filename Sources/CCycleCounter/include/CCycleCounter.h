#ifndef PAGEBENCH_CCYCLECOUNTER_H
#define PAGEBENCH_CCYCLECOUNTER_H

// The CPU's own time-stamp counter, for timing pages at a fraction of a clock_gettime call
// (MonotonicTime.PageClock in PagebenchBase is its only user; it decides whether the counter
// can be trusted and converts its ticks to nanoseconds).

#include <stdbool.h>
#include <stdint.h>

/// The counter's current value in ticks, or 0 on an architecture without one.
/// x86-64: RDTSC. AArch64: CNTVCT_EL0 (the virtual counter, constant frequency by architecture).
/// Not serialising: a read may move by a few instructions against its neighbours, a few
/// nanoseconds, which is below a page latency's precision.
static inline __attribute__((always_inline)) uint64_t pagebench_cycle_counter_read(void) {
#if defined(__x86_64__)
    uint32_t low, high;
    __asm__ __volatile__("rdtsc" : "=a"(low), "=d"(high));
    return ((uint64_t)high << 32) | low;
#elif defined(__aarch64__)
    uint64_t value;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(value));
    return value;
#else
    return 0;
#endif
}

/// Whether the counter ticks at one constant rate whatever the core's frequency and power
/// state: on x86-64 the invariant-TSC bit (CPUID 0x80000007, EDX bit 8); on AArch64 always
/// (the generic timer's counter); elsewhere false (there is no counter).
bool pagebench_cycle_counter_is_invariant(void);

#endif
