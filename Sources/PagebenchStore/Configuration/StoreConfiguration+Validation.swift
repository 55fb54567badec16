import PagebenchBase
import PagebenchPage

extension StoreConfiguration {
    /// The largest number of partitions (partition keys travel in tokens as 32-bit values).
    public static let maximumPartitions = Int(Int32.max)
    /// The largest number of partitions of a skewed (`zipf`) layout, whose per-partition
    /// counts are kept in a table (8 bytes per partition).
    public static let maximumSkewedPartitions = 1_000_000
    /// The largest number of items in a store (2^48, about 2.8 × 10^14).
    public static let maximumItems = 1 << 48
    /// The longest service time (S20) one request may be given: 11 days, the longest duration
    /// the spec text accepts.
    public static let maximumServiceNanoseconds: Double = 11 * 86_400 * 1e9

    /// Checks every field and throws a ``StoreError`` (`invalidConfiguration`) naming the
    /// first field that is out of range, its value, and what is accepted.
    public func validate() throws {
        try validateTyped()
    }

    func validateTyped() throws(StoreError) {
        func fail(_ message: String) -> StoreError { .invalidConfiguration(message) }

        guard partitions >= 1, partitions <= Self.maximumPartitions else {
            throw fail("partitions must be between 1 and \(Self.maximumPartitions), got \(partitions)")
        }
        switch itemsPerPartition {
        case .uniform(let count):
            guard count >= 0 else { throw fail("itemsPerPartition must be at least 0, got \(count)") }
        case .zipf(let mean, let exponent):
            guard mean >= 0 else { throw fail("itemsPerPartition: the zipf mean must be at least 0, got \(mean)") }
            guard exponent.isFinite, exponent >= 0, exponent <= 10 else {
                throw fail("itemsPerPartition: the zipf exponent must be between 0 and 10, got \(exponent)")
            }
            guard partitions <= Self.maximumSkewedPartitions else {
                throw fail(
                    "partitions must be at most \(Self.maximumSkewedPartitions) with a zipf itemsPerPartition, got \(partitions); use uniform counts for more"
                )
            }
        }
        let (total, overflow) = partitions.multipliedReportingOverflow(by: itemsPerPartition.mean)
        guard !overflow, total <= Self.maximumItems else {
            throw fail(
                "partitions × itemsPerPartition must be at most \(Self.maximumItems) items, got \(partitions) × \(itemsPerPartition.mean)"
            )
        }
        switch itemSize {
        case .fixed(let size):
            guard size >= 1 else { throw fail("itemSize: a fixed size must be at least 1 byte, got \(size)") }
        case .uniform(let min, let max):
            guard min >= 1, min <= max else {
                throw fail("itemSize: uniform needs 1 ≤ min ≤ max, got \(min)-\(max)")
            }
        case .lognormal(let median, let sigma, let min, let max):
            guard median >= 1 else {
                throw fail("itemSize: the lognormal median must be at least 1 byte, got \(median)")
            }
            guard sigma.isFinite, sigma >= 0, sigma <= 10 else {
                throw fail("itemSize: the lognormal sigma must be between 0 and 10, got \(sigma)")
            }
            guard min >= 1, min <= max, max <= Int(UInt32.max) else {
                throw fail("itemSize: lognormal needs 1 ≤ min ≤ max ≤ \(UInt32.max), got min=\(min), max=\(max)")
            }
        }
        guard itemSize.maximumBytes <= 1 << 40 else {
            throw fail("itemSize: items can be at most 1 TiB (\(1 << 40) bytes), got \(itemSize.maximumBytes)")
        }
        guard selectivity.isFinite, selectivity >= 0, selectivity <= 1 else {
            throw fail("selectivity must be between 0 and 1 (a fraction of items), got \(selectivity)")
        }
        if case .runs(let length) = clustering, length < 1 {
            throw fail("clustering: the run length must be at least 1, got \(length)")
        }
        guard scanBudgetBytes >= 1, scanBudgetBytes <= 1 << 50 else {
            throw fail("scanBudgetBytes must be between 1 and \(1 << 50), got \(scanBudgetBytes)")
        }
        guard defaultLimit >= 1, defaultLimit <= PageRequest.maximumLimit else {
            throw fail("defaultLimit must be between 1 and \(PageRequest.maximumLimit), got \(defaultLimit)")
        }
        try validateServiceTime()
        for (name, rate) in [("throttleRate", throttleRate), ("faultRate", faultRate)] {
            guard rate.isFinite, rate >= 0, rate <= 1 else {
                throw fail("\(name) must be between 0 and 1 (a fraction of requests), got \(rate)")
            }
        }
        guard throttleRate + faultRate <= 1 else {
            throw fail("throttleRate + faultRate must be at most 1, got \(throttleRate) + \(faultRate)")
        }
        if let writes {
            try writes.validate(partitions: partitions)
            // Under writes every key is a 64-bit position with room for inserts between base
            // items (KeySpace): items + partitions must fit in 2^40 slots of 2^24 keys.
            guard total + partitions <= KeySpace.maximumSlots else {
                throw fail(
                    "writes: a store under writes holds at most \(KeySpace.maximumSlots - partitions) items (2^40 − partitions), got \(total)"
                )
            }
        }
    }

    private func validateServiceTime() throws(StoreError) {
        func fail(_ message: String) -> StoreError { .invalidConfiguration("serviceTime: " + message) }
        switch serviceTime.base {
        case .none:
            break
        case .fixed(let ns):
            guard ns >= 0 else { throw fail("a fixed latency must not be negative, got \(ns) ns") }
        case .uniform(let low, let high):
            guard low >= 0, low <= high else { throw fail("uniform needs 0 ≤ min ≤ max, got \(low)-\(high) ns") }
        case .lognormal(let median, let sigma, let max):
            guard median >= 0, max >= median else {
                throw fail("lognormal needs 0 ≤ median ≤ max, got median \(median) ns, max \(max) ns")
            }
            guard sigma.isFinite, sigma >= 0, sigma <= 10 else {
                throw fail("the lognormal sigma must be between 0 and 10, got \(sigma)")
            }
        }
        guard serviceTime.nanosecondsPerScannedByte.isFinite, serviceTime.nanosecondsPerScannedByte >= 0,
            serviceTime.nanosecondsPerScannedByte <= 1e6
        else {
            throw fail(
                "nanosecondsPerScannedByte must be between 0 and 1e6, got \(serviceTime.nanosecondsPerScannedByte)"
            )
        }
        guard serviceTime.hotPartitionMultiplier.isFinite, serviceTime.hotPartitionMultiplier >= 1,
            serviceTime.hotPartitionMultiplier <= 1e6
        else {
            throw fail("hotPartitionMultiplier must be between 1 and 1e6, got \(serviceTime.hotPartitionMultiplier)")
        }
        // The longest service time these settings allow must fit a Duration (and a test run):
        // a long base × a large hot multiplier, or a per-byte cost × a large page, overflowed.
        let baseMaximum: Double =
            switch serviceTime.base {
            case .none: 0
            case .fixed(let nanoseconds): Double(nanoseconds)
            case .uniform(_, let maximum): Double(maximum)
            case .lognormal(_, _, let maximum): Double(maximum)
            }
        let longest =
            baseMaximum * (serviceTime.hotPartitions.isEmpty ? 1 : serviceTime.hotPartitionMultiplier)
            + serviceTime.nanosecondsPerScannedByte * (Double(scanBudgetBytes) + Double(itemSize.maximumBytes))
        guard longest <= Self.maximumServiceNanoseconds else {
            throw fail(
                "the longest service time these settings allow (base maximum × hotPartitionMultiplier + "
                    + "nanosecondsPerScannedByte × (scanBudgetBytes + the largest item)) is \(SpecText.durationText(Int(min(longest, 9e18)))), "
                    + "more than \(SpecText.durationText(Int(Self.maximumServiceNanoseconds))); lower one of them"
            )
        }
        if let bad = serviceTime.hotPartitions.first(where: { $0 < 0 || $0 >= partitions }) {
            throw fail("hot partition \(bad) does not exist; partitions are 0 to \(partitions - 1)")
        }
        if let repeated = serviceTime.hotPartitions.firstRepeated()?.element {
            throw fail("hotPartitions lists partition \(repeated) twice; give each hot partition once")
        }
    }
}
