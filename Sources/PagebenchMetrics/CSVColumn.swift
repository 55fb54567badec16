/// A column of a CSV record type: its descriptor plus how to read and write it on a row.
public struct CSVColumn<Row>: Sendable {
    public let descriptor: ColumnDescriptor
    /// The row's value for this column.
    public let value: @Sendable (Row) -> CSVValue
    /// Stores a parsed value (already checked against the column's type) into a row.
    let store: @Sendable (inout Row, CSVValue) -> Void

    public init(
        descriptor: ColumnDescriptor,
        value: @escaping @Sendable (Row) -> CSVValue,
        store: @escaping @Sendable (inout Row, CSVValue) -> Void
    ) {
        self.descriptor = descriptor
        self.value = value
        self.store = store
    }

    public var name: String { descriptor.name }
}

/// A row type that reads from and writes to CSV through its column registry.
public protocol CSVRecord: Sendable, Equatable {
    /// Every column, in header order. The single source of truth for header, docs and comparisons.
    static var csvColumns: [CSVColumn<Self>] { get }
    /// A row to start decoding from: every non-optional field is overwritten by the decoder.
    static var blank: Self { get }
    /// Earlier `schema_version`s this type still reads, each with the columns it lacked
    /// (optional columns added since). Empty by default.
    static var earlierSchemaVersions: [Int: Set<String>] { get }
    /// A value of this row that its own meaning rules out, beyond what every row is checked
    /// for (``Implausibility``): the column and why. nil (the default) when there is none.
    func implausibility() -> Implausibility?
}

extension CSVRecord {
    public static var earlierSchemaVersions: [Int: Set<String>] { [:] }
    public func implausibility() -> Implausibility? { nil }
}

extension CSVRecord {
    /// The descriptors of ``csvColumns``.
    public static var columnDescriptors: [ColumnDescriptor] { csvColumns.map(\.descriptor) }

    /// The header names, in order.
    public static var csvHeader: [String] { csvColumns.map(\.name) }

    /// The row's cells, in header order.
    public var csvFields: [String] { Self.csvColumns.map { $0.value(self).field } }

    /// The value of the named column, or nil if there is no such column.
    public func value(ofColumn name: String) -> CSVValue? {
        Self.csvColumns.first { $0.name == name }?.value(self)
    }
}

// Builders for the usual kinds of column. Key paths are `& Sendable` so the columns are.
extension CSVColumn {
    private static func descriptor(
        _ name: String,
        _ type: ColumnType,
        optional: Bool,
        unit: String,
        _ polarity: Polarity,
        _ kind: ColumnKind,
        _ summary: String
    ) -> ColumnDescriptor {
        ColumnDescriptor(
            name: name,
            unit: unit,
            polarity: polarity,
            kind: kind,
            type: type,
            isOptional: optional,
            summary: summary
        )
    }

    /// A text column; unless `optional`, a cell must not be empty.
    public static func text(
        _ name: String,
        _ keyPath: WritableKeyPath<Row, String> & Sendable,
        _ kind: ColumnKind,
        optional: Bool = false,
        _ summary: String
    ) -> CSVColumn {
        CSVColumn(
            descriptor: descriptor(name, .text, optional: optional, unit: "", .neutral, kind, summary),
            value: { .text($0[keyPath: keyPath]) },
            store: { row, value in if case .text(let text) = value { row[keyPath: keyPath] = text } }
        )
    }

    public static func integer(
        _ name: String,
        _ keyPath: WritableKeyPath<Row, Int> & Sendable,
        unit: String = "",
        _ polarity: Polarity,
        _ kind: ColumnKind,
        _ summary: String
    ) -> CSVColumn {
        CSVColumn(
            descriptor: descriptor(name, .integer, optional: false, unit: unit, polarity, kind, summary),
            value: { .integer($0[keyPath: keyPath]) },
            store: { row, value in if case .integer(let number) = value { row[keyPath: keyPath] = number } }
        )
    }

    public static func integer(
        _ name: String,
        _ keyPath: WritableKeyPath<Row, Int?> & Sendable,
        unit: String = "",
        _ polarity: Polarity,
        _ kind: ColumnKind,
        _ summary: String
    ) -> CSVColumn {
        CSVColumn(
            descriptor: descriptor(name, .integer, optional: true, unit: unit, polarity, kind, summary),
            value: { row in row[keyPath: keyPath].map { .integer($0) } ?? .missing },
            store: { row, value in if case .integer(let number) = value { row[keyPath: keyPath] = number } }
        )
    }

    public static func unsigned(
        _ name: String,
        _ keyPath: WritableKeyPath<Row, UInt64> & Sendable,
        unit: String = "",
        _ polarity: Polarity,
        _ kind: ColumnKind,
        _ summary: String
    ) -> CSVColumn {
        CSVColumn(
            descriptor: descriptor(name, .unsignedInteger, optional: false, unit: unit, polarity, kind, summary),
            value: { .unsignedInteger($0[keyPath: keyPath]) },
            store: { row, value in if case .unsignedInteger(let number) = value { row[keyPath: keyPath] = number } }
        )
    }

    public static func unsigned(
        _ name: String,
        _ keyPath: WritableKeyPath<Row, UInt64?> & Sendable,
        unit: String = "",
        _ polarity: Polarity,
        _ kind: ColumnKind,
        _ summary: String
    ) -> CSVColumn {
        CSVColumn(
            descriptor: descriptor(name, .unsignedInteger, optional: true, unit: unit, polarity, kind, summary),
            value: { row in row[keyPath: keyPath].map { .unsignedInteger($0) } ?? .missing },
            store: { row, value in if case .unsignedInteger(let number) = value { row[keyPath: keyPath] = number } }
        )
    }

    public static func decimal(
        _ name: String,
        _ keyPath: WritableKeyPath<Row, Double> & Sendable,
        unit: String = "",
        _ polarity: Polarity,
        _ kind: ColumnKind,
        _ summary: String
    ) -> CSVColumn {
        CSVColumn(
            descriptor: descriptor(name, .decimal, optional: false, unit: unit, polarity, kind, summary),
            value: { .decimal($0[keyPath: keyPath]) },
            store: { row, value in if case .decimal(let number) = value { row[keyPath: keyPath] = number } }
        )
    }

    public static func decimal(
        _ name: String,
        _ keyPath: WritableKeyPath<Row, Double?> & Sendable,
        unit: String = "",
        _ polarity: Polarity,
        _ kind: ColumnKind,
        _ summary: String
    ) -> CSVColumn {
        CSVColumn(
            descriptor: descriptor(name, .decimal, optional: true, unit: unit, polarity, kind, summary),
            value: { row in row[keyPath: keyPath].map { .decimal($0) } ?? .missing },
            store: { row, value in if case .decimal(let number) = value { row[keyPath: keyPath] = number } }
        )
    }

    /// Five columns `<prefix>_p50_ns` … `<prefix>_max_ns` for an optional set of latency percentiles.
    /// All five cells are empty when the percentiles are nil; the decoder rejects a partly filled group.
    public static func latency(
        _ prefix: String,
        _ keyPath: WritableKeyPath<Row, LatencyPercentiles?> & Sendable,
        kind: ColumnKind = .measured,
        _ what: String
    ) -> [CSVColumn] {
        LatencyPercentiles.columnParts.map { suffix, label, field in
            CSVColumn(
                descriptor: descriptor(
                    "\(prefix)_\(suffix)_ns",
                    .unsignedInteger,
                    optional: true,
                    unit: "ns",
                    .lowerIsBetter,
                    kind,
                    "\(what): \(label)"
                ),
                value: { row in row[keyPath: keyPath].map { .unsignedInteger($0[keyPath: field]) } ?? .missing },
                store: { row, value in
                    guard case .unsignedInteger(let number) = value else { return }
                    var percentiles = row[keyPath: keyPath] ?? LatencyPercentiles()
                    percentiles[keyPath: field] = number
                    row[keyPath: keyPath] = percentiles
                }
            )
        }
    }
}
