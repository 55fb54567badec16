import PagebenchMetrics

/// What `pagebench check` keeps of one results file: per row identity, only what it judges.
///
/// Rows are added one at a time as the file is read (``add(_:cells:)``), so a large file is
/// never held as rows: each row leaves its repetition, its failed and ended drains, an index
/// into its group's distinct *profiles* (the deterministic values compared exactly, H3, and
/// the context values the checker warns about: repetitions of one configuration share one)
/// and the values of the measured columns with a polarity (the samples), kept per column and
/// only once they vary: a column whose every repetition has the same value (error counts,
/// most target columns) costs nothing per row. Memory grows with the rows by what varies
/// between them (results/check-performance.md).
package struct CheckSamples: Sendable {
    /// The file's name in messages.
    package let file: String
    var groups: [ResultIdentity: Group] = [:]
    /// The refusal of the first row given twice (same identity and repetition), if any.
    var duplicate: String?

    package init(file: String) {
        self.file = file
    }

    /// The samples of `rows`, as if read from `file` in this order.
    package init(_ rows: [ResultRow], file: String) {
        self.init(file: file)
        for row in rows { add(row) }
    }

    /// How many rows were added.
    package var rowCount: Int { groups.values.reduce(0) { $0 + $1.samples.count } }

    /// Keeps what the checker judges of `row`.
    package mutating func add(_ row: ResultRow) {
        add(row, cells: ResultRow.csvColumns.map { $0.value(row) })
    }

    /// Keeps what the checker judges of `row`, whose typed cells (by ``ResultRow/csvColumns``
    /// index, as ``CSVFile/forEachResult(_:_:)`` reads them) give the values: read from the
    /// cells, not through the row's key paths, which cost more than parsing the row.
    package mutating func add(_ row: ResultRow, cells: [CSVValue]) {
        // Mutated in place through the dictionary: no copy of the group per row.
        let repeated = !groups[row.identity, default: Group()].add(row, cells: cells)
        if repeated, duplicate == nil {
            duplicate =
                "two rows are \(row.scenario) [\(row.configHash)] \(row.pagerKind) ×\(row.concurrency) repetition "
                + "\(row.repetition): a measurement counted twice would be two samples; give each row once"
        }
    }

    /// The measured columns with a polarity, whose values are the samples (in this order).
    static let judgedColumns = ResultRow.csvColumns.filter {
        $0.descriptor.kind == .measured && $0.descriptor.polarity != .neutral
    }
    static let judgedColumnIndices = ResultRow.csvColumns.indices.filter {
        ResultRow.csvColumns[$0].descriptor.kind == .measured
            && ResultRow.csvColumns[$0].descriptor.polarity != .neutral
    }

    /// The deterministic columns, compared exactly (in this order in ``Profile/deterministic``).
    static let deterministicColumns = ResultRow.csvColumns.filter { $0.descriptor.kind == .deterministic }
    static let deterministicColumnIndices = ResultRow.csvColumns.indices.filter {
        ResultRow.csvColumns[$0].descriptor.kind == .deterministic
    }

    /// The rows of one identity.
    struct Group: Sendable {
        var samples: [Sample] = []
        /// The samples' values of each of ``CheckSamples/judgedColumns``, in sample order.
        var columns = [ColumnSamples](repeating: ColumnSamples(), count: CheckSamples.judgedColumnIndices.count)
        var profiles: [Profile] = []
        var profileIndex: [Profile: Int] = [:]
        var repetitions: Set<Int> = []

        /// Adds `row`; false when its repetition was already there (it is added all the same).
        mutating func add(_ row: ResultRow, cells: [CSVValue]) -> Bool {
            let first = repetitions.insert(row.repetition).inserted
            let profile = Profile(row, cells: cells)
            let index: Int
            if let last = samples.last?.profile, profiles[last] == profile {
                index = last  // the usual case: repetitions of one configuration, no hashing
            } else if let known = profileIndex[profile] {
                index = known
            } else {
                index = profiles.count
                profiles.append(profile)
                profileIndex[profile] = index
            }
            let sample = samples.count
            samples.append(
                Sample(repetition: row.repetition, failedDrains: row.errors.total, drains: row.drains, profile: index)
            )
            for (column, cell) in CheckSamples.judgedColumnIndices.enumerated() {
                columns[column].append(cells[cell].numericValue, at: sample)
            }
            return first
        }

        /// The sample indices in repetition order (stable for equal repetitions).
        var inRepetitionOrder: [Int] {
            samples.indices.sorted { samples[$0].repetition < samples[$1].repetition }
        }

        /// The value of judged column `column` of sample `sample`, nil for an empty cell.
        func value(_ sample: Int, _ column: Int) -> Double? {
            columns[column].value(at: sample)
        }
    }

    /// One judged column's values in one group, in sample order: a single value while every
    /// sample has the same one, an array once they differ.
    struct ColumnSamples: Sendable {
        /// The first sample's value; NaN for an empty cell (a CSV decimal is always finite).
        private var first: Double = .nan
        /// Every sample's value once one differed from the first; empty until then.
        private var varying: [Double] = []

        mutating func append(_ value: Double?, at index: Int) {
            let value = value ?? .nan
            if index == 0 {
                first = value
            } else if !varying.isEmpty {
                varying.append(value)
            } else if value.bitPattern != first.bitPattern {
                varying = [Double](repeating: first, count: index)
                varying.append(value)
            }
        }

        func value(at index: Int) -> Double? {
            let value = varying.isEmpty ? first : varying[index]
            return value.isNaN ? nil : value
        }
    }

    /// One row, reduced.
    struct Sample: Sendable {
        var repetition: Int
        /// Drains that failed (the `errors_*` columns).
        var failedDrains: Int
        /// Drains that ended.
        var drains: Int
        /// Index into the group's ``Group/profiles``.
        var profile: Int
    }

    /// The values of a row that are compared exactly or warned about, shared by the rows that
    /// have the same ones.
    struct Profile: Sendable, Hashable {
        /// The fields of ``CheckSamples/deterministicColumns``.
        var deterministic: [String]
        var buildConfiguration: String
        var seed: UInt64
        var limit: Int
        var loadModel: String
        var swiftVersion: String
        var host: String
        var cores: Int
        /// `exact` or `cached` (an empty cell, from schema 3 and earlier, reads as `cached`).
        var allocationCounting: String
        /// Bounded by duration, not drain count (no `target_drains`).
        var durationBounded: Bool
        /// A store with writes paged by several pagers (S25 columns present, concurrency > 1):
        /// the writes are the same, but which page sees which depends on timing.
        var concurrentWrites: Bool
        /// `target_kind`: empty in-process, else the kind of remote target paged.
        var targetKind: String

        init(_ row: ResultRow, cells: [CSVValue]) {
            deterministic = CheckSamples.deterministicColumnIndices.map { cells[$0].field }
            buildConfiguration = row.buildConfiguration
            seed = row.seed
            limit = row.limit ?? 0
            loadModel = row.loadModel
            swiftVersion = row.swiftVersion
            host = row.host
            cores = row.cores
            allocationCounting = row.allocationCounting.isEmpty ? "cached" : row.allocationCounting
            durationBounded = row.plannedDrains == nil
            concurrentWrites = row.duplicateItems != nil && row.concurrency > 1
            targetKind = row.targetKind
        }
    }
}
