import Foundation
import Testing

@testable import PagebenchBase

/// The page clock: whatever it reads (the CPU's counter or CLOCK_MONOTONIC), page latencies
/// come out in nanoseconds of the monotonic clock.
@Suite struct PageClockTests {
    @Test("the monotonic fallback's ticks are nanoseconds; readings out of order give 0")
    func monotonicFallback() {
        let clock = MonotonicTime.PageClock.monotonic
        #expect(clock.source == .monotonic)
        #expect(clock.ticksPerSecond == 1e9)
        #expect(clock.nanoseconds(from: 1_000, to: 251_000) == 250_000)
        #expect(clock.nanoseconds(from: 5, to: 4) == 0)
        let before = MonotonicTime.nanoseconds()
        let reading = clock.now()
        #expect(reading >= before && reading <= MonotonicTime.nanoseconds())
    }

    @Test("a counter clock converts ticks at its rate, also for intervals of hours")
    func counterConversion() {
        // 2.3 GHz: 1 / 2.3 ns per tick.
        let fixed = UInt64((4_294_967_296 / 2.3).rounded())
        let clock = MonotonicTime.PageClock(source: .cycleCounter, nanosecondsPerTickFixed: fixed)
        #expect(abs(clock.ticksPerSecond - 2.3e9) < 1)
        #expect((99...100).contains(clock.nanoseconds(from: 100, to: 100 + 230)))
        let hour: UInt64 = 3600 * 2_300_000_000
        let converted = Double(clock.nanoseconds(from: 7, to: 7 + hour))
        #expect(abs(converted - 3600e9) < 3600e9 * 1e-9)
        #expect(clock.nanoseconds(from: 10, to: 9) == 0)
    }

    @Test("the process's clock measures an interval as CLOCK_MONOTONIC does, within 0.1 %")
    func processClockAgreesWithMonotonic() {
        let clock = MonotonicTime.PageClock.process
        // Brackets (monotonic, clock, monotonic) at both ends: however the thread is
        // preempted, the true interval lies between the inner and the outer bracket.
        let outerStart = MonotonicTime.nanoseconds()
        let start = clock.now()
        let innerStart = MonotonicTime.nanoseconds()
        Thread.sleep(forTimeInterval: 0.02)
        let innerEnd = MonotonicTime.nanoseconds()
        let end = clock.now()
        let outerEnd = MonotonicTime.nanoseconds()
        let measured = Double(clock.nanoseconds(from: start, to: end))
        let shortest = Double(innerEnd - innerStart)
        let longest = Double(outerEnd - outerStart)
        #expect(measured >= shortest * 0.999 && measured <= longest * 1.001, "\(clock.source): \(measured) ns")
    }
}
