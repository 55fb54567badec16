#ifndef PAGEBENCH_CCALLGRIND_H
#define PAGEBENCH_CCALLGRIND_H

// Valgrind's callgrind client requests, for counting the instructions of a measured phase
// (InstructionCounter in PagebenchProcessStats is the only user). They are compiled in when
// <valgrind/callgrind.h> is present at build time (Debian: the valgrind package ships it) and
// are no-ops otherwise; outside valgrind each is a few instructions that do nothing.

#include <stdbool.h>

/// Whether this build was compiled with <valgrind/callgrind.h>, so the requests below do something.
bool pagebench_callgrind_supported(void);

/// Whether the process runs under valgrind (always false when not supported).
bool pagebench_running_on_valgrind(void);

/// Starts counting: instrumentation on for every thread (callgrind's global state, unlike its
/// per-thread collection toggle), then the counters zeroed.
void pagebench_callgrind_start(void);

/// Stops counting and writes the counts since `pagebench_callgrind_start` to a dump file whose
/// description is `label` (callgrind numbers the dumps: `--callgrind-out-file` + `.1`, `.2`, …),
/// zeroing the counters.
void pagebench_callgrind_stop_and_dump(const char *label);

#endif
