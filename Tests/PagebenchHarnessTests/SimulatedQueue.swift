import PagebenchBase
import PagebenchHarness

/// A service whose capacity is known exactly, for checking the knee search (H5) without
/// wall-clock time: `servers` servers, each taking `serviceNanoseconds` per drain (plus an
/// optional seeded jitter), first come first served, fed by an open-loop arrival stream at a
/// constant rate. Time is simulated: arrivals are at k / rate seconds on a manual clock, and
/// latency is measured from the *intended* arrival (corrected for coordinated omission).
///
/// Theoretical capacity: servers / service time. Below it (no jitter) every drain takes
/// exactly the service time; above it the queue and the latency grow for the whole step.
struct SimulatedQueue {
    var servers: Int
    var serviceNanoseconds: Double
    /// Each drain's service time is multiplied by a factor uniform in [1 − jitter, 1 + jitter].
    var jitter: Double = 0
    var seed: UInt64 = 1

    var capacityPerSecond: Double { Double(servers) * 1e9 / serviceNanoseconds }

    /// One step of `durationSeconds` at `rate` drains/s: its corrected latencies, sorted, and the
    /// drains it started per second (those a server took before the step ended, as the
    /// harness's drains plus the ones cancelled in flight at its end; the rest were queued).
    func step(rate: Double, durationSeconds: Double) -> (latencies: [Double], startedPerSecond: Double) {
        let arrivals = Int(rate * durationSeconds)
        let end = durationSeconds * 1e9
        var freeAt = [Double](repeating: 0, count: servers)
        var random = SplitMix64(seed: seed, stream: UInt64(rate.bitPattern), index: 0)
        var latencies: [Double] = []
        latencies.reserveCapacity(arrivals)
        var started = 0
        for k in 0..<arrivals {
            let arrival = Double(k) * 1e9 / rate
            // The server free first (the lowest index among equals). A plain loop: in a debug
            // build `indices.min(by:)` was 90 % of this suite's knee tests' CPU.
            var server = 0
            var candidate = 1
            while candidate < servers {
                if freeAt[candidate] < freeAt[server] { server = candidate }
                candidate += 1
            }
            let start = max(arrival, freeAt[server])
            let service = serviceNanoseconds * (1 + jitter * (2 * random.nextUnit() - 1))
            freeAt[server] = start + service
            latencies.append(freeAt[server] - arrival)
            if start < end { started += 1 }
        }
        return (latencies.sorted(), Double(started) / durationSeconds)
    }

    /// The corrected latencies of a step of `durationSeconds` at `rate` drains/s, sorted.
    func latencies(rate: Double, durationSeconds: Double) -> [Double] {
        step(rate: rate, durationSeconds: durationSeconds).latencies
    }

    /// The p-th percentile (0 < p < 1) of a step's corrected latency.
    func percentile(_ p: Double, rate: Double, durationSeconds: Double) -> Double {
        Self.percentile(p, of: latencies(rate: rate, durationSeconds: durationSeconds))
    }

    /// The p-th percentile (0 < p < 1) of sorted latencies.
    static func percentile(_ p: Double, of sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }
}
