import PagebenchStore
import Testing

@testable import PagebenchHarness

/// `--shard I/N` arithmetic: N processes together run every pager slot and every drain of
/// the one-process run exactly once, and open-loop drains keep their one-process intended starts.
@Suite struct ShardTests {
    static let concurrencies = Array(1...40) + [63, 64, 65, 100, 512, 1000]

    @Test(arguments: 1...16)
    func everyPagerSlotBelongsToExactlyOneShard(count: Int) {
        let shards = Shard.all(count: count)
        for concurrency in Self.concurrencies {
            var owner = [Int?](repeating: nil, count: concurrency)
            for shard in shards {
                let slots = Array(shard.pagerSlots(ofConcurrency: concurrency))
                #expect(slots.count == shard.pagers(ofConcurrency: concurrency))
                for slot in slots {
                    #expect(
                        owner[slot] == nil,
                        "slot \(slot) of \(concurrency) given to shards \(owner[slot]!) and \(shard.index)"
                    )
                    owner[slot] = shard.index
                }
            }
            #expect(owner.allSatisfy { $0 != nil }, "a pager slot of \(concurrency) belongs to no shard of \(count)")
            // Shares differ by at most one pager, the remainder going to the lowest indices.
            let shares = shards.map { $0.pagers(ofConcurrency: concurrency) }
            #expect(shares.reduce(0, +) == concurrency)
            #expect(shares.max()! - shares.min()! <= 1)
            #expect(shares == shares.sorted(by: >))
        }
    }

    @Test(arguments: 1...16)
    func everyDrainBelongsToExactlyOneShardInIncreasingOrder(count: Int) {
        let shards = Shard.all(count: count)
        for concurrency in [1, 2, 3, 5, 7, 8, 16, 17, 31, 64] {
            for total in [0, 1, 2, 7, 16, 100, 257] {
                var owner = [Int?](repeating: nil, count: total)
                var counted = 0
                for shard in shards {
                    let share = shard.drainCount(of: total, concurrency: concurrency)
                    counted += share
                    guard shard.pagers(ofConcurrency: concurrency) > 0 else {
                        #expect(share == 0, "shard \(shard) has no pager at \(concurrency) but \(share) drains")
                        continue
                    }
                    // The claim sequence: local 0, 1, 2, ... until past the total.
                    var local = 0
                    var previous = -1
                    while true {
                        let drain = shard.drainIndex(local: local, concurrency: concurrency)
                        guard drain < total else { break }
                        #expect(drain > previous)
                        #expect(shard.owns(drain: drain, concurrency: concurrency))
                        #expect(
                            owner[drain] == nil,
                            "drain \(drain) given to shards \(owner[drain]!) and \(shard.index)"
                        )
                        owner[drain] = shard.index
                        previous = drain
                        local += 1
                    }
                    #expect(local == share, "shard \(shard) claimed \(local) drains of \(total), its share is \(share)")
                }
                #expect(counted == total)
                #expect(
                    owner.allSatisfy { $0 != nil },
                    "a drain of \(total) at \(concurrency) belongs to no shard of \(count)"
                )
            }
        }
    }

    @Test func drainSharesFollowPagerShares() {
        // 3 pagers over 2 shards: shard 0 runs slots 0 and 2, so two thirds of the drains.
        let shards = Shard.all(count: 2)
        #expect(shards.map { $0.pagers(ofConcurrency: 3) } == [2, 1])
        #expect(shards.map { $0.drainCount(of: 300, concurrency: 3) } == [200, 100])
        #expect((0..<6).map { shards[0].drainIndex(local: $0, concurrency: 3) } == [0, 2, 3, 5, 6, 8])
        #expect((0..<3).map { shards[1].drainIndex(local: $0, concurrency: 3) } == [1, 4, 7])
    }

    @Test(arguments: ["4/4", "-1/4", "5/4", "1/0", "0/5000", "a/b", "1", "1/2/3", "", " 1/2"])
    func invalidShardSpecificationsAreRejected(text: String) {
        #expect(throws: HarnessError.self) { try Shard(parsing: text) }
        do {
            _ = try Shard(parsing: text)
        } catch {
            #expect(error.kind == .invalidArgument)
            #expect(error.message.contains("--shard"))
        }
    }

    @Test func validShardSpecifications() throws {
        #expect(try Shard(parsing: "0/1") == .whole)
        let shard = try Shard(parsing: "3/16")
        #expect(shard.index == 3 && shard.count == 16 && shard.description == "3/16")
    }

    /// Open loop: each shard's claims carry the intended starts of the one-process schedule
    /// (Poisson gaps summed in the same order), so the shards' arrivals are exactly one process's.
    @Test(arguments: [1, 2, 3, 4])
    func openLoopShardsKeepTheOneProcessArrivalSchedule(count: Int) {
        var workload = Workload()
        workload.load = .open(drainsPerSecond: 5000, poisson: true)
        let planner = DrainPlanner(workload: workload, store: StoreConfiguration(partitions: 4))
        let concurrency = 5
        let whole = PhaseControl(
            planner: planner,
            isWarmup: false,
            start: 1_000,
            drainLimit: 60,
            durationNanoseconds: nil
        )
        var expected: [Int: UInt64] = [:]
        while let claim = whole.claim() { expected[claim.index] = claim.intendedStart }
        #expect(expected.count == 60)
        var seen: [Int: UInt64] = [:]
        for shard in Shard.all(count: count) {
            let control = PhaseControl(
                planner: planner,
                isWarmup: false,
                start: 1_000,
                drainLimit: 60,
                durationNanoseconds: nil,
                shard: shard,
                concurrency: concurrency
            )
            while let claim = control.claim() {
                #expect(seen[claim.index] == nil)
                seen[claim.index] = claim.intendedStart
            }
        }
        #expect(seen == expected)
    }

    /// A duration-bound open-loop phase ends each shard's arrivals where one process's end.
    @Test func openLoopDurationBoundEndsAtTheSameArrival() {
        var workload = Workload()
        workload.load = .open(drainsPerSecond: 1000, poisson: false)
        let planner = DrainPlanner(workload: workload, store: StoreConfiguration(partitions: 4))
        let whole = PhaseControl(
            planner: planner,
            isWarmup: false,
            start: 0,
            drainLimit: nil,
            durationNanoseconds: 0.05e9
        )
        var count = 0
        while whole.claim() != nil { count += 1 }
        var sharded = 0
        for shard in Shard.all(count: 3) {
            let control = PhaseControl(
                planner: planner,
                isWarmup: false,
                start: 0,
                drainLimit: nil,
                durationNanoseconds: 0.05e9,
                shard: shard,
                concurrency: 8
            )
            while control.claim() != nil { sharded += 1 }
        }
        #expect(count == 50)
        #expect(sharded == count)
    }
}
