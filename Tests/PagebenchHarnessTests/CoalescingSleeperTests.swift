import PagebenchBase
import PagebenchPage
import PagebenchStore
import Testing

@testable import PagebenchHarness

/// S20: the shared-timer sleeper that waits out injected service times for the load harness.
/// Checks behaviour only (never wakes early, cancellation is immediate, never hangs), no
/// wall-clock upper bounds.
@Suite struct CoalescingSleeperTests {
    /// Steps until `condition` holds (the driver or a waiter has got going), without sleeping.
    func until(_ condition: () -> Bool) async {
        while !condition() { await Task.yield() }
    }

    @Test func s20WithoutADriverASleepFallsBackToTheRuntimeTimer() async throws {
        let sleeper = CoalescingSleeper(resolution: .microseconds(100))
        let start = MonotonicTime.nanoseconds()
        try await sleeper.sleep(for: .milliseconds(2))
        #expect(MonotonicTime.nanoseconds() - start >= 2_000_000)
    }

    @Test func s20ManyConcurrentSleepsAllWakeAndNoneEarly() async throws {
        let sleeper = CoalescingSleeper(resolution: .microseconds(250))
        let early = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                await sleeper.run()
                return 0
            }
            await until { sleeper.isDriving }
            let sleepers = try await withThrowingTaskGroup(of: Int.self) { inner in
                for index in 0..<200 {
                    inner.addTask {
                        let duration = UInt64(100_000 + (index % 17) * 130_000)
                        let start = MonotonicTime.nanoseconds()
                        try await sleeper.sleep(for: .nanoseconds(Int64(duration)))
                        return MonotonicTime.nanoseconds() - start >= duration ? 0 : 1
                    }
                }
                return try await inner.reduce(0, +)
            }
            group.cancelAll()
            return sleepers + (try await group.reduce(0, +))
        }
        #expect(early == 0)
    }

    /// One wake-up queued at a time: every waiter due in the same tick is still woken (each
    /// running waiter hands on to the next), none early, and cancelling some of them while
    /// they wait neither hangs the others nor loses a wake-up.
    @Test(arguments: [1, 3])
    func s20PacedWakeUpsWakeEveryWaiterAndSkipCancelledOnes(maxQueued: Int) async throws {
        let sleeper = CoalescingSleeper(resolution: .microseconds(500), maxQueuedWakeUps: maxQueued)
        let (early, cancelled) = await withTaskGroup(of: (Int, Int).self) { group in
            group.addTask {
                await sleeper.run()
                return (0, 0)
            }
            await until { sleeper.isDriving }
            let outcome = await withTaskGroup(of: (Int, Int).self) { inner in
                for _ in 0..<300 {
                    inner.addTask {
                        let start = MonotonicTime.nanoseconds()
                        do {
                            try await sleeper.sleep(for: .milliseconds(2))
                        } catch {
                            return (0, 1)
                        }
                        return (MonotonicTime.nanoseconds() - start >= 2_000_000 ? 0 : 1, 0)
                    }
                }
                let held = Task {
                    try await sleeper.sleep(for: .milliseconds(2))
                }
                await until { sleeper.waiterCount >= 150 }
                held.cancel()
                var sum = (0, 0)
                for await (early, cancelled) in inner {
                    sum.0 += early
                    sum.1 += cancelled
                }
                let heldCancelled = (try? await held.value) == nil
                return (sum.0, sum.1 + (heldCancelled ? 1 : 0))
            }
            group.cancelAll()
            return outcome
        }
        #expect(early == 0)
        // Only the held task was cancelled; it may have woken before the cancel reached it.
        #expect(cancelled <= 1)
        #expect(sleeper.waiterCount == 0)
    }

    @Test func s20CancellingASleeperResumesItAtOnceWithCancellationError() async throws {
        let sleeper = CoalescingSleeper()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await sleeper.run() }
            await until { sleeper.isDriving }
            let sleeping = Task {
                try await sleeper.sleep(for: .seconds(3600))
            }
            await until { sleeper.waiterCount == 1 }
            sleeping.cancel()
            await #expect(throws: CancellationError.self) { try await sleeping.value }
            group.cancelAll()
        }
    }

    @Test func s20ATaskCancelledBeforeSleepingDoesNotSleep() async throws {
        let sleeper = CoalescingSleeper()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await sleeper.run() }
            await until { sleeper.isDriving }
            let sleeping = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await sleeper.sleep(for: .seconds(3600))
            }
            await #expect(throws: CancellationError.self) { try await sleeping.value }
            group.cancelAll()
        }
    }

    @Test func s20WhenTheDriverStopsWaitersFinishOnTheRuntimeTimer() async throws {
        let sleeper = CoalescingSleeper()
        let driver = Task { await sleeper.run() }
        await until { sleeper.isDriving }
        // A sleeper registers with the driver, then the driver goes away under it.
        let sleeping = Task {
            let start = MonotonicTime.nanoseconds()
            try await sleeper.sleep(for: .milliseconds(30))
            return MonotonicTime.nanoseconds() - start
        }
        await until { sleeper.waiterCount == 1 }
        driver.cancel()
        await driver.value
        let slept = try await sleeping.value
        #expect(slept >= 30_000_000)
    }

    @Test func s20AStoreOnTheSleeperIsCancellable() async throws {
        var configuration = StoreConfiguration(partitions: 1, itemsPerPartition: .uniform(10), itemSize: .fixed(100))
        configuration.serviceTime.base = .fixed(nanoseconds: 3_600_000_000_000)
        let sleeper = CoalescingSleeper()
        let store = try SyntheticStore(configuration: configuration, sleep: { try await sleeper.sleep(for: $0) })
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await sleeper.run() }
            await until { sleeper.isDriving }
            let paging = Task { try await store.page(PageRequest(range: .partition(0))) }
            await until { sleeper.waiterCount == 1 }
            paging.cancel()
            await #expect(throws: CancellationError.self) { try await paging.value }
            group.cancelAll()
        }
    }
}
