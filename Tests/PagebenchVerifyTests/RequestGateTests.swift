import Testing

@testable import PagebenchVerify

/// The gate's slots, computed for instants given (no clock read, nothing timed): the rate over
/// all requests, and V7's drains at once sent together.
@Suite struct RequestGateTests {
    static let start = ContinuousClock.now

    static func slots(_ gate: RequestGate, bursts: [Int], askedAt: Duration = .zero) throws -> [Duration] {
        var state = gate.state(startingAt: start)
        return try bursts.map { burst in try gate.reserve(&state, now: start + askedAt, burst: burst) - start }
    }

    @Test func requestsOneAtATimeAreSpacedByTheRate() throws {
        let gate = RequestGate(rate: 10, maxRequests: 100, maxSeconds: 60, start: Self.start)
        #expect(try Self.slots(gate, bursts: [1, 1, 1]) == [.zero, .milliseconds(100), .milliseconds(200)])
    }

    @Test func v7ABurstSharesOneSlotAndTheNextComesAsManyIntervalsLater() throws {
        let gate = RequestGate(rate: 10, maxRequests: 100, maxSeconds: 60, start: Self.start)
        let slots = try Self.slots(gate, bursts: [3, 3, 3, 3, 3, 3, 1])
        #expect(
            slots == [
                .zero, .zero, .zero, .milliseconds(300), .milliseconds(300), .milliseconds(300), .milliseconds(600),
            ]
        )
    }

    @Test func theBoundsHoldForBurstsToo() {
        let gate = RequestGate(rate: 10, maxRequests: 10, maxSeconds: 60, start: Self.start)
        #expect(throws: RequestGate.Closed.self) { try Self.slots(gate, bursts: Array(repeating: 3, count: 11)) }
        let short = RequestGate(rate: 10, maxRequests: 100, maxSeconds: 1, start: Self.start)
        // 1 s at 10 a second: 10 slots, in bursts of 3 the fourth burst starts at 0.9 s, the fifth would at 1.2 s.
        #expect(throws: RequestGate.Closed.self) { try Self.slots(short, bursts: Array(repeating: 3, count: 13)) }
        #expect(throws: Never.self) { try Self.slots(short, bursts: Array(repeating: 3, count: 12)) }
    }
}
