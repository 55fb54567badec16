// A workaround for valgrind 3.19 (Debian 12's), for `pagebench run --count-instructions`.
//
// Valgrind 3.19 clears its own kill signal in the mask a program passes to rt_sigsuspend by
// writing to the program's memory (later releases copy it first). libdispatch's dispatch_main,
// where a Swift async main parks the main thread, passes a constant mask in read-only memory,
// so valgrind crashes there ("the 'impossible' happened", SIGSEGV writing the mask) as soon as
// another thread is started. This definition of sigsuspend, which the executable exports in
// place of libc's, hands libc's own sigsuspend a writable copy of the mask: the same call with
// the same mask, outside valgrind as under it.

#if defined(__linux__)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>

int sigsuspend(const sigset_t *mask) {
    static int (*next)(const sigset_t *);
    int (*resolved)(const sigset_t *) = __atomic_load_n(&next, __ATOMIC_ACQUIRE);
    if (resolved == 0) {
        resolved = (int (*)(const sigset_t *))dlsym(RTLD_NEXT, "sigsuspend");
        __atomic_store_n(&next, resolved, __ATOMIC_RELEASE);
    }
    sigset_t copy = *mask;
    return resolved(&copy);
}
#endif
