import PagebenchBase

/// The precomputed service-time and failure-injection model of a store (S20, S21).
struct ServiceModel: Sendable {
    let base: LatencyDistribution
    let nanosecondsPerScannedByte: Double
    let hotPartitions: Set<Int>
    let hotMultiplier: Double
    let throttleRate: Double
    let faultRate: Double
    let latencySeed: UInt64
    let failureSeed: UInt64

    init(configuration: StoreConfiguration) {
        base = configuration.serviceTime.base
        nanosecondsPerScannedByte = configuration.serviceTime.nanosecondsPerScannedByte
        hotPartitions = Set(configuration.serviceTime.hotPartitions)
        hotMultiplier = configuration.serviceTime.hotPartitionMultiplier
        throttleRate = configuration.throttleRate
        faultRate = configuration.faultRate
        latencySeed = StableHash.combine(configuration.seed, 0x6C61_7465_6E63_79)  // "latency"
        failureSeed = StableHash.combine(configuration.seed, 0x6661_756C_7473)  // "faults"
    }

    var injectsFailures: Bool { throttleRate > 0 || faultRate > 0 }
    var isZero: Bool { base == .none && nanosecondsPerScannedByte == 0 }

    /// The base latency for a draw `hash`, in nanoseconds.
    func baseNanoseconds(_ hash: UInt64) -> Double {
        switch base {
        case .none:
            return 0
        case .fixed(let ns):
            return Double(ns)
        case .uniform(let low, let high):
            return Double(low) + Double(hash.multipliedFullWidth(by: UInt64(high - low + 1)).high)
        case .lognormal(let median, let sigma, let max):
            let z = StoreMath.normalQuantile(StoreMath.unitInterval(hash))
            return Swift.min(Double(max), Double(median) * Math.exp(sigma * z))
        }
    }

    /// The injected failure, if any, of the request with arrival ordinal `ordinal` (S21).
    func failure(ordinal: UInt64) -> StoreError? {
        let draw = StoreMath.unitInterval(StableHash.combine(failureSeed, ordinal))
        if draw < throttleRate { return .throttled(ordinal: ordinal) }
        if draw < throttleRate + faultRate { return .injectedFault(ordinal: ordinal) }
        return nil
    }
}
