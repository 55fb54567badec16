import Foundation
import PagebenchBase
import PagebenchHarness
import Testing

/// H5: the knee search, checked against services whose capacity is known exactly.
@Suite struct KneeSearchTests {
    /// Runs a search whose steps are judged by `held`, synchronously.
    func search(_ search: KneeSearch, held: (Double) -> Bool) -> KneeSearch.Result {
        var search = search
        while true {
            switch search.next() {
            case .finished(let result): return result
            case .measure(let rate): search.record(rate: rate, held: held(rate))
            }
        }
    }

    @Test(arguments: [(1, 1.0), (4, 1.0), (16, 5.0), (3, 2.5), (64, 20.0)])
    func findsTheCapacityOfAQueueWithinTheResolution(servers: Int, serviceMilliseconds: Double) throws {
        let queue = SimulatedQueue(servers: servers, serviceNanoseconds: serviceMilliseconds * 1e6)
        let stepSeconds = 10.0
        for (resolution, sloMultiple) in [(0.05, 10.0), (0.02, 4.0), (0.10, 20.0)] {
            let service = serviceMilliseconds * 1e6
            let bound = service * sloMultiple
            let result = search(try KneeSearch(startRate: 10, resolution: resolution)) { rate in
                queue.percentile(0.99, rate: rate, durationSeconds: stepSeconds) < bound
            }
            #expect(result.ending == .resolved)
            let knee = try #require(result.knee)
            let capacity = queue.capacityPerSecond
            // Above capacity the p99 of a step of T seconds is about 0.99·T·(rate/capacity − 1)
            // plus the service time, so the SLO breaks at capacity·(1 + (bound − service)/(0.99·T)):
            // a finite step lets a queue build for a while. The search must land within the
            // resolution of that rate ...
            let theoretical = capacity * (1 + (bound - service) / 1e9 / (0.99 * stepSeconds))
            #expect(abs(knee - theoretical) <= resolution * theoretical, "knee \(knee) vs \(theoretical)")
            // ... and, with steps long against the bound (as chosen here), within the
            // resolution of the capacity itself.
            #expect(theoretical - capacity <= resolution / 2 * capacity)
            #expect(abs(knee - capacity) <= resolution * capacity, "knee \(knee) vs capacity \(capacity)")
            let broken = try #require(result.lowestBroken)
            #expect(broken > knee && broken - knee <= resolution * knee)
            // Every step is kept, in order, and the last held/broken verdicts are the answer.
            #expect(result.steps.contains { $0.rate == knee && $0.held })
            #expect(result.steps.contains { $0.rate == broken && !$0.held })
            // Doubling from 10/s to past capacity, then bisection to the resolution.
            let stepBound = Int(log2(capacity / 10)) + Int(log2(1 / resolution)) + 4
            #expect(result.steps.count <= stepBound)
        }
    }

    @Test func uncorrectedLatencyWouldFindAKneeTooHigh() throws {
        // The same queue judged on service time alone (latency measured from when a server
        // took the drain, i.e. ignoring the queue: coordinated omission) never breaks the SLO,
        // so the search runs to the maximum rate, far past the capacity.
        let queue = SimulatedQueue(servers: 4, serviceNanoseconds: 2e6)
        let result = search(try KneeSearch(startRate: 10, maxRate: 100_000)) { _ in queue.serviceNanoseconds < 20e6 }
        #expect(result.ending == .heldAtMaxRate)
        #expect(result.knee == 100_000)
        #expect(result.knee! > 10 * queue.capacityPerSecond)
    }

    @Test func aFlatCurveEndsAtTheMaximumRate() throws {
        let result = search(try KneeSearch(startRate: 5, maxRate: 1000, resolution: 0.05)) { _ in true }
        #expect(result.ending == .heldAtMaxRate)
        #expect(result.knee == 1000)
        #expect(result.lowestBroken == nil)
        // 5, 10, 20, …, 640, then the cap itself.
        #expect(result.steps.map(\.rate) == [5, 10, 20, 40, 80, 160, 320, 640, 1000])
    }

    @Test func aCurveThatNeverHoldsHalvesAndGivesUp() throws {
        let result = search(try KneeSearch(startRate: 1024)) { _ in false }
        #expect(result.ending == .neverHeld)
        #expect(result.knee == nil)
        #expect(result.steps.count == KneeSearch.maxHalvings + 1)
        #expect(result.lowestBroken == 1)
    }

    @Test func aFirstStepThatBreaksSearchesDownwards() throws {
        // A cliff at 300/s, first step 1000/s: halve to 500, 250 (held), then bisect.
        let result = search(try KneeSearch(startRate: 1000, resolution: 0.01)) { $0 <= 300 }
        #expect(result.ending == .resolved)
        #expect(Array(result.steps.map(\.rate).prefix(3)) == [1000, 500, 250])
        let knee = try #require(result.knee)
        #expect(knee <= 300 && knee >= 300 * 0.99)
    }

    @Test func aCliffShapedCurveIsBisected() throws {
        // Latency flat until 777/s, then off a cliff.
        let result = search(try KneeSearch(startRate: 1, resolution: 0.001)) { $0 < 777 }
        #expect(result.ending == .resolved)
        let knee = try #require(result.knee)
        #expect(knee < 777 && knee >= 777 * 0.999)
        #expect(result.steps.count <= 10 + 1 + 11)
    }

    @Test(arguments: 1...20)
    func aNoisyCurveTerminatesInBoundedStepsAndKeepsItsInvariant(seed: Int) throws {
        // Verdicts that flip at random around a knee near 400/s (a noisy service).
        var random = SplitMix64(seed: UInt64(seed))
        let result = search(try KneeSearch(startRate: 10, resolution: 0.02)) { rate in
            let probabilityHeld = rate < 300 ? 0.95 : rate < 500 ? 0.5 : 0.05
            return random.nextUnit() < probabilityHeld
        }
        #expect(result.steps.count <= 40)
        if let knee = result.knee, let broken = result.lowestBroken { #expect(knee < broken) }
        // Whatever the noise, the result is one of the measured steps.
        if let knee = result.knee { #expect(result.steps.contains { $0.rate == knee && $0.held }) }
        // A jittered queue (random service times) terminates too, and near its capacity.
        let queue = SimulatedQueue(servers: 2, serviceNanoseconds: 5e6, jitter: 0.5, seed: UInt64(seed))
        let queued = search(try KneeSearch(startRate: 10, resolution: 0.05)) { rate in
            queue.percentile(0.99, rate: rate, durationSeconds: 5) < 100e6
        }
        #expect(queued.steps.count <= 40)
        let knee = try #require(queued.knee)
        #expect(knee <= queue.capacityPerSecond * 1.1 && knee >= queue.capacityPerSecond * 0.7)
    }

    @Test func theStepLimitEndsASearch() throws {
        let result = search(try KneeSearch(startRate: 1, resolution: 1e-9, maxSteps: 6)) { $0 < 100 }
        #expect(result.ending == .stepLimit)
        #expect(result.steps.count == 6)
    }

    @Test func badParametersAreRefusedNamingTheFlag() {
        #expect(throws: HarnessError.self) { try KneeSearch(startRate: 0) }
        #expect(throws: HarnessError.self) { try KneeSearch(startRate: .nan) }
        #expect(throws: HarnessError.self) { try KneeSearch(startRate: 100, maxRate: 50) }
        #expect(throws: HarnessError.self) { try KneeSearch(startRate: 100, resolution: 0) }
        #expect(throws: HarnessError.self) { try KneeSearch(startRate: 100, resolution: 1) }
        do {
            _ = try KneeSearch(startRate: 100, maxRate: 50)
        } catch {
            #expect(error.description.contains("--max-rate"))
        }
    }

    @Test func runDrivesAnAsyncMeasurement() async throws {
        let queue = SimulatedQueue(servers: 8, serviceNanoseconds: 1e6)
        let result = try await KneeSearch.run(try KneeSearch(startRate: 100)) { rate in
            try Task.checkCancellation()
            return queue.percentile(0.99, rate: rate, durationSeconds: 5) < 10e6
        }
        let knee = try #require(result.knee)
        #expect(abs(knee - 8000) <= 0.05 * 8000)
    }
}
