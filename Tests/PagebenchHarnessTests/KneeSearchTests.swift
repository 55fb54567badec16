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

    /// Judges a step of the queue as `pagebench knee` does: the p99 SLO and the achieved rate.
    func verdict(
        _ search: KneeSearch,
        _ queue: SimulatedQueue,
        rate: Double,
        seconds: Double,
        bound: Double
    ) -> KneeSearch.Verdict {
        let step = queue.step(rate: rate, durationSeconds: seconds)
        return search.judge(
            rate: rate,
            achievedRate: step.startedPerSecond,
            sloHeld: SimulatedQueue.percentile(0.99, of: step.latencies) < bound
        )
    }

    @Test func aSaturatedStepWhoseLatencyIsStillUnderTheBoundBreaksByThroughput() throws {
        // 8 servers of 2 ms: capacity 4000 drains/s. A 2 s step at 4400/s (10 % past it) builds
        // a backlog whose p99 (about 180 ms) is still under a 250 ms bound: the SLO alone holds.
        let queue = SimulatedQueue(servers: 8, serviceNanoseconds: 2e6)
        let search = try KneeSearch(startRate: 500)
        let saturated = verdict(search, queue, rate: 4400, seconds: 2, bound: 250e6)
        #expect(saturated.sloHeld)
        // But the step started only about the capacity: 4004 of 4400/s (plus a drain a server), 0.91 < 0.95.
        #expect(abs(saturated.achievedRate - queue.capacityPerSecond) <= 0.01 * queue.capacityPerSecond)
        #expect(!saturated.sustained)
        #expect(!saturated.held)
        // Below the capacity the step keeps up and holds.
        let below = verdict(search, queue, rate: 3800, seconds: 2, bound: 250e6)
        #expect(below.sloHeld && below.sustained && below.held)
        #expect(below.achievedFraction > 0.99)
        // --min-achieved 0 judges on the SLOs alone, as before.
        let slosOnly = try KneeSearch(startRate: 500, minAchievedFraction: 0)
        #expect(verdict(slosOnly, queue, rate: 4400, seconds: 2, bound: 250e6).held)
    }

    @Test(arguments: [(8, 2.0), (64, 13.6), (3, 5.0)])
    func theThroughputConditionFindsTheCapacityWhereALooseSLONeverBreaks(
        servers: Int,
        serviceMilliseconds: Double
    ) throws {
        // A latency bound beyond what a 2 s step can build (10 s; at 4× the capacity the p99 is
        // about 6 s): the SLO alone holds at every rate, and the search runs to --max-rate ...
        let queue = SimulatedQueue(servers: servers, serviceNanoseconds: serviceMilliseconds * 1e6)
        let capacity = queue.capacityPerSecond
        let slosOnly = try KneeSearch(startRate: 10, maxRate: capacity * 4, minAchievedFraction: 0)
        let loose = search(slosOnly) { verdict(slosOnly, queue, rate: $0, seconds: 2, bound: 10e9).held }
        #expect(loose.ending == .heldAtMaxRate)
        // ... while the achieved rate puts the knee between the capacity and capacity / 0.95,
        // within the resolution (a queue that keeps up starts what it is offered; past the
        // capacity it starts the capacity, plus one drain per server).
        let withThroughput = try KneeSearch(startRate: 10, maxRate: capacity * 4, resolution: 0.02)
        let result = search(withThroughput) { verdict(withThroughput, queue, rate: $0, seconds: 2, bound: 10e9).held }
        #expect(result.ending == .resolved)
        let knee = try #require(result.knee)
        #expect(knee <= (capacity + Double(servers) / 2) / 0.95, "knee \(knee) vs capacity \(capacity)")
        #expect(knee >= capacity / 0.95 / 1.02 * 0.99, "knee \(knee) vs capacity \(capacity)")
        // The same search is the same on every run: the queue and the verdicts are deterministic.
        #expect(
            search(withThroughput) { verdict(withThroughput, queue, rate: $0, seconds: 2, bound: 10e9).held } == result
        )
    }

    @Test func aMinimumAchievedFractionOutsideZeroToOneIsRefusedNamingTheFlag() {
        for fraction in [-0.1, 1.01, .nan] {
            do {
                _ = try KneeSearch(startRate: 10, minAchievedFraction: fraction)
                Issue.record("--min-achieved \(fraction) was accepted")
            } catch {
                #expect(error.description.contains("--min-achieved"))
            }
        }
        #expect((try? KneeSearch(startRate: 10, minAchievedFraction: 0)) != nil)
        #expect((try? KneeSearch(startRate: 10, minAchievedFraction: 1)) != nil)
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

    /// Issue 24: --from 1e300 made the default --max-rate infinite; the rates are the ones a
    /// step's run takes, and halving stops before a rate below them.
    @Test func ratesAreThoseAStepRunTakes() throws {
        #expect(throws: HarnessError.self) { try KneeSearch(startRate: 1e300) }
        #expect(throws: HarnessError.self) { try KneeSearch(startRate: 1e-6) }
        #expect(throws: HarnessError.self) { try KneeSearch(startRate: 100, maxRate: 2e7) }
        #expect(try KneeSearch(startRate: 1e6).maxRate == Workload.openLoopRates.upperBound)
        let result = search(try KneeSearch(startRate: 0.004)) { _ in false }
        #expect(result.ending == .neverHeld)
        #expect(result.steps.map(\.rate) == [0.004, 0.002, 0.001])
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
