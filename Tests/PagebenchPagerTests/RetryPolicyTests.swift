import PagebenchPager
import PagebenchTestSupport
import Testing

@Suite(.timeLimit(.minutes(5)))
struct RetryPolicyTests {
    @Test func retriesAreOffByDefault() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2]])
        source.fail(ScriptedRequest(token: "t1"), with: [ScriptedSourceError.throttled])
        let pager = forwardPager(source)
        await pager.fetch()
        await #expect(throws: ScriptedSourceError.throttled) { try await pager.loadNext() }
        #expect(pager.counters.retries == 0)
        #expect(source.requestCount == 2)
    }

    @Test func retryableErrorsAreRetriedWithSeededExponentialBackoff() async throws {
        let sleeper = ManualSleeper()
        let policy = RetryPolicy(
            maxRetries: 5,
            initialBackoff: .milliseconds(10),
            multiplier: 2,
            maxBackoff: .milliseconds(35),
            jitterFraction: 0.5,
            seed: 42,
            sleep: sleeper.sleep
        )
        let source = ScriptedPageSource(forwardPages: [[1], [2], [3]])
        source.fail(ScriptedRequest(token: "t1"), with: Array(repeating: ScriptedSourceError.throttled, count: 3))
        let stream = forwardStream(source, retryPolicy: policy)
        var items: [Int] = []
        for try await item in stream.items(\.items) { items.append(item) }
        #expect(items == [1, 2, 3])
        #expect(stream.counters.retries == 3)
        #expect(stream.counters.requests == 6)
        #expect(stream.counters.pages == 3)

        // Waits grow 10, 20, 35 (capped) ms, each scaled into [50 %, 100 %] by jitter.
        let waits = sleeper.durations
        #expect(waits.count == 3)
        for (wait, base) in zip(waits, [10.0, 20.0, 35.0]) {
            let milliseconds = Double(wait.components.attoseconds) / 1e15 + Double(wait.components.seconds) * 1e3
            #expect(milliseconds >= base * 0.5 && milliseconds <= base)
        }
        // Same seed, same waits.
        let again = ManualSleeper()
        let rerun = ScriptedPageSource(forwardPages: [[1], [2], [3]])
        rerun.fail(ScriptedRequest(token: "t1"), with: Array(repeating: ScriptedSourceError.throttled, count: 3))
        var policyAgain = policy
        policyAgain.sleep = again.sleep
        for try await _ in forwardStream(rerun, retryPolicy: policyAgain) {}
        #expect(again.durations == waits)
    }

    @Test func nonRetryableAndExhaustedRetriesFail() async throws {
        let sleeper = ManualSleeper()
        let policy = RetryPolicy(maxRetries: 2, sleep: sleeper.sleep)
        let source = ScriptedPageSource(forwardPages: [[1], [2]])
        source.fail(ScriptedRequest(token: "t1"), with: [ScriptedSourceError("bad request")])
        let pager = forwardPager(source, retryPolicy: policy)
        await pager.fetch()
        await #expect(throws: ScriptedSourceError("bad request")) { try await pager.loadNext() }
        #expect(pager.counters.retries == 0)

        source.fail(ScriptedRequest(token: "t1"), with: Array(repeating: ScriptedSourceError.throttled, count: 3))
        await #expect(throws: ScriptedSourceError.throttled) { try await pager.loadNext() }
        #expect(pager.counters.retries == 2)
        #expect(sleeper.durations.count == 2)
        // The pages are intact and the next load works.
        try await pager.loadNext()
        #expect(pager.output?.items == [1, 2])
    }

    @Test func backoffIsCappedAndJitterBounded() {
        let policy = RetryPolicy(
            maxRetries: 10,
            initialBackoff: .milliseconds(1),
            multiplier: 3,
            maxBackoff: .milliseconds(50),
            jitterFraction: 1
        )
        #expect(policy.backoff(forRetry: 1, unit: 0) == .milliseconds(1))
        #expect(policy.backoff(forRetry: 2, unit: 0) == .milliseconds(3))
        #expect(policy.backoff(forRetry: 3, unit: 0) == .milliseconds(9))
        #expect(policy.backoff(forRetry: 9, unit: 0) == .milliseconds(50))
        #expect(policy.backoff(forRetry: 9, unit: 0.5) == .milliseconds(25))
    }
}
