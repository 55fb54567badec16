// Snappy's C interface (Debian: libsnappy-dev): the block format Prometheus remote write
// compresses its requests with.
#include <snappy-c.h>
