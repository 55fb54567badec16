import PagebenchPager
import PagebenchTestSupport
import Testing

/// The test helpers' waits end when their task is cancelled (``CancellableWaiters``): a test
/// past its time limit is cancelled, and a wait for an event its cancelled code never brings
/// used to keep the whole `swift test` run waiting forever (seen on a loaded machine).
@Suite(.timeLimit(.minutes(5)))
struct CancellableWaitTests {
    /// Waits in a child task, cancels it `early` (before it can have started waiting) or after
    /// it waits, and returns what the wait threw.
    static func cancelledWait(early: Bool, _ wait: @escaping @Sendable () async throws -> Void) async -> (any Error)? {
        let task = Task { try await wait() }
        if early {
            task.cancel()
        } else {
            // Long enough for the child to be waiting on any machine is unknowable; a yield
            // loop lets it reach its wait when it can. Either order must end the wait.
            for _ in 0..<100 { await Task.yield() }
            task.cancel()
        }
        do {
            try await task.value
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [true, false])
    func nextFetchEndsWhenCancelled(early: Bool) async throws {
        let source = ScriptedPageSource(forwardPages: [[1]], gated: true)
        let error = await Self.cancelledWait(early: early) { _ = try await source.nextFetch() }
        #expect(error is CancellationError)
        // The source still hands the next gated fetch to the next claimer.
        let pager = forwardPager(source)
        async let fetched: Void = pager.fetch()
        try await source.nextFetch().release()
        await fetched
        #expect(pager.output?.items == [1])
    }

    @Test(arguments: [true, false])
    func sleepersAndClockWaitsEndWhenCancelled(early: Bool) async throws {
        let sleeper = ManualSleeper(holds: true)
        #expect(await Self.cancelledWait(early: early) { try await sleeper.nextSleeper() } is CancellationError)
        let clock = ManualClock()
        #expect(await Self.cancelledWait(early: early) { try await clock.waitForSleepers(1) } is CancellationError)
        // A wait that is answered is not cancelled: a sleeper arrives, the waiter returns.
        async let slept: Void = sleeper.sleep(for: .seconds(1))
        try await sleeper.nextSleeper()
        sleeper.releaseAll()
        try await slept
    }
}
