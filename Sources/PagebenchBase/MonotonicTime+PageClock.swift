import CCycleCounter

#if canImport(Glibc)
import Glibc
#endif

extension MonotonicTime {
    /// The clock that times pages: the CPU's invariant time-stamp counter where the kernel
    /// itself keeps time with it, converted to nanoseconds with a rate calibrated against
    /// `CLOCK_MONOTONIC`; otherwise `CLOCK_MONOTONIC` itself (``nanoseconds()``).
    ///
    /// Two readings time every page. In the 2-core test VM a `clock_gettime` costs ~25 ns and
    /// a counter read ~11 ns, on pages of ~200 ns (results/harness-overhead.md). The counter
    /// is used only when all of these hold, checked once per process
    /// (``MonotonicTime/PageClock/process``):
    /// - the CPU says its counter is invariant (x86-64: CPUID's invariant-TSC bit; AArch64's
    ///   generic timer always is): constant rate in every frequency and power state;
    /// - the kernel's current clocksource is that counter (`tsc`, `arch_sys_counter`): the
    ///   kernel found it synchronised across CPUs and watches it, so a page that resumes on
    ///   another core is timed right;
    /// - two consecutive calibrations (≥ 2 ms each) agree on its rate within 0.1 %;
    /// - a read costs less than a `clock_gettime` (a hypervisor may trap the instruction).
    ///
    /// Readings (``now()``) are ticks, meaningful only to ``nanoseconds(from:to:)`` of the same
    /// clock; never mix them with ``MonotonicTime/nanoseconds()``.
    public struct PageClock: Sendable, Equatable {
        /// Where the ticks come from.
        public enum Source: Sendable, Equatable {
            /// The CPU's counter (RDTSC, CNTVCT_EL0); ticks are converted with the calibrated rate.
            case cycleCounter
            /// `CLOCK_MONOTONIC`; ticks are nanoseconds.
            case monotonic
        }

        public let source: Source
        /// Nanoseconds per tick as a 32.32 fixed-point number (`1 << 32` for the monotonic clock).
        @usableFromInline let nanosecondsPerTickFixed: UInt64

        /// Counter ticks per second (1e9 for the monotonic clock). Unit: Hz.
        public var ticksPerSecond: Double { 1e9 * 4_294_967_296 / Double(nanosecondsPerTickFixed) }

        /// `CLOCK_MONOTONIC` itself: the fallback, and what tests compare with.
        public static var monotonic: PageClock { PageClock(source: .monotonic, nanosecondsPerTickFixed: 1 << 32) }

        /// The process's page clock, chosen and calibrated on first use (a few milliseconds,
        /// once; the conditions are in the type's description).
        public static let process: PageClock = calibrated()

        /// A counter clock of a given rate (ticks per nanosecond), as calibration finds it.
        init(source: Source, nanosecondsPerTickFixed: UInt64) {
            self.source = source
            self.nanosecondsPerTickFixed = nanosecondsPerTickFixed
        }

        /// The current reading, in this clock's ticks.
        @inlinable @inline(__always)
        public func now() -> UInt64 {
            source == .cycleCounter ? pagebench_cycle_counter_read() : MonotonicTime.nanoseconds()
        }

        /// Nanoseconds from reading `start` to reading `end` (0 if they are out of order).
        @inlinable @inline(__always)
        public func nanoseconds(from start: UInt64, to end: UInt64) -> UInt64 {
            let ticks = MonotonicTime.elapsed(from: start, to: end)
            guard source == .cycleCounter else { return ticks }
            // Below 2^31 ticks per nanosecond the high word stays below 2^32: no overflow.
            let (high, low) = ticks.multipliedFullWidth(by: nanosecondsPerTickFixed)
            return high << 32 | low >> 32
        }
    }
}

extension MonotonicTime.PageClock {
    /// The counter clock if the conditions of the type's description hold, else ``monotonic``.
    static func calibrated() -> MonotonicTime.PageClock {
        guard pagebench_cycle_counter_is_invariant(), kernelKeepsTimeWithCounter(), counterIsCheaper() else {
            return .monotonic
        }
        // Longer intervals if a busy machine disturbed the short ones.
        for intervalNanoseconds in [2_000_000, 8_000_000, 32_000_000] as [UInt64] {
            let first = Reading.take()
            sleepBlocking(nanoseconds: intervalNanoseconds)
            let middle = Reading.take()
            sleepBlocking(nanoseconds: intervalNanoseconds)
            let last = Reading.take()
            guard let one = middle.nanosecondsPerTick(since: first), let two = last.nanosecondsPerTick(since: middle),
                let whole = last.nanosecondsPerTick(since: first), abs(one - two) <= 1e-3 * whole
            else { continue }
            return MonotonicTime.PageClock(
                source: .cycleCounter,
                nanosecondsPerTickFixed: UInt64((whole * 4_294_967_296).rounded())
            )
        }
        return .monotonic
    }

    /// A counter reading and the monotonic clock's, taken together: the narrowest of a few
    /// brackets (monotonic, counter, monotonic), so a preemption between them is not chosen.
    struct Reading {
        var ticks: UInt64
        var nanoseconds: UInt64

        static func take() -> Reading {
            var best: (width: UInt64, reading: Reading)?
            for _ in 0..<7 {
                let before = MonotonicTime.nanoseconds()
                let ticks = pagebench_cycle_counter_read()
                let after = MonotonicTime.nanoseconds()
                let width = MonotonicTime.elapsed(from: before, to: after)
                if best == nil || width < best!.width {
                    best = (width, Reading(ticks: ticks, nanoseconds: before + width / 2))
                }
            }
            return best!.reading
        }

        /// The rate between two readings, or nil if either clock did not advance.
        func nanosecondsPerTick(since earlier: Reading) -> Double? {
            guard ticks > earlier.ticks, nanoseconds > earlier.nanoseconds else { return nil }
            return Double(nanoseconds - earlier.nanoseconds) / Double(ticks - earlier.ticks)
        }
    }

    /// Whether the kernel's current clocksource is the counter (Linux sysfs); false if unknown.
    static func kernelKeepsTimeWithCounter() -> Bool {
        let path = "/sys/devices/system/clocksource/clocksource0/current_clocksource"
        guard let text = try? FileSystem.readText(path) else { return false }
        let name = text.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
        #if arch(x86_64)
        return name == "tsc"
        #elseif arch(arm64)
        return name == "arch_sys_counter"
        #else
        return false
        #endif
    }

    /// Whether a counter read costs less than a `clock_gettime` (the cheapest of a few batches each).
    static func counterIsCheaper() -> Bool {
        // Neither read can be optimised away: one is volatile assembly, the other a libc call.
        func cheapest(_ read: () -> UInt64) -> UInt64 {
            var best = UInt64.max
            for _ in 0..<5 {
                let start = MonotonicTime.nanoseconds()
                for _ in 0..<200 { _ = read() }
                best = min(best, MonotonicTime.elapsed(from: start, to: MonotonicTime.nanoseconds()))
            }
            return best
        }
        return cheapest { pagebench_cycle_counter_read() } < cheapest { MonotonicTime.nanoseconds() }
    }

    private static func sleepBlocking(nanoseconds: UInt64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}
