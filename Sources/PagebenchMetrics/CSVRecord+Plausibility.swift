/// A cell that is well formed but that no run can have written: a negative count, a p50
/// above its p99, a 0/1 flag of 2, a row of 0 pagers. Every reader of pagebench's CSV files
/// (``CSVFile``, ``CSVRecord/parseCSV(_:file:)``: `check`, `compare`, `report`,
/// `baseline update`) refuses such a row, naming the file, the line, the column and why,
/// instead of judging or plotting it.
public struct Implausibility: Sendable, Equatable {
    /// The column's name.
    public let column: String
    /// Why, after the column's name: `is -5; no figure pagebench writes is negative`.
    public let problem: String

    public init(column: String, problem: String) {
        self.column = column
        self.problem = problem
    }
}

/// The checks every record type's rows pass, from its columns alone (what the decoder runs
/// on every row, before ``CSVRecord/implausibility()``):
/// - no number is negative (pagebench writes none: counts, rates, latencies, bytes, seconds
///   and ratios are all ≥ 0);
/// - a column whose unit is `0/1` holds 0 or 1;
/// - the latency percentiles of one prefix are in order: `_p50_ns` ≤ `_p90_ns` ≤ `_p99_ns`
///   ≤ `_p999_ns` ≤ `_max_ns` (those of them the type has).
struct CSVPlausibility {
    let names: [String]
    /// Columns whose unit is `0/1`.
    let flags: [Int]
    /// (lower percentile, next higher one) column pairs of every latency group.
    let percentilePairs: [(lower: Int, higher: Int)]

    init(_ columns: [ColumnDescriptor]) {
        let names = columns.map(\.name)
        self.names = names
        flags = columns.indices.filter { columns[$0].unit == "0/1" }
        let suffixes = LatencyPercentiles.columnSuffixes
        var prefixes: [String] = []
        for name in names {
            guard let suffix = suffixes.first(where: name.hasSuffix) else { continue }
            let prefix = String(name.dropLast(suffix.count))
            if !prefixes.contains(prefix) { prefixes.append(prefix) }
        }
        var pairs: [(Int, Int)] = []
        for prefix in prefixes {
            let present = suffixes.compactMap { names.firstIndex(of: prefix + $0) }
            pairs += zip(present, present.dropFirst()).map { ($0, $1) }
        }
        percentilePairs = pairs
    }

    /// The first rule `cells` (a row's typed cells by column index) break, if any.
    func check(_ cells: [CSVValue]) -> Implausibility? {
        for (index, cell) in cells.enumerated() {
            switch cell {
            case .integer(let value) where value < 0:
                return Implausibility(
                    column: names[index],
                    problem: "is \(value); no figure pagebench writes is negative"
                )
            case .decimal(let value) where value < 0:
                return Implausibility(
                    column: names[index],
                    problem: "is \(value); no figure pagebench writes is negative"
                )
            default:
                continue
            }
        }
        for index in flags {
            if let value = cells[index].numericValue, value != 0, value != 1 {
                return Implausibility(column: names[index], problem: "is \(cells[index].field); it is 0 or 1")
            }
        }
        for (lower, higher) in percentilePairs {
            guard let low = cells[lower].numericValue, let high = cells[higher].numericValue, low > high else {
                continue
            }
            return Implausibility(
                column: names[lower],
                problem: "is \(cells[lower].field), above \(names[higher]) (\(cells[higher].field)); "
                    + "a lower percentile cannot exceed a higher one"
            )
        }
        return nil
    }
}
