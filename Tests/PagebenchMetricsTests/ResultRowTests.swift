import Foundation
import PagebenchTestSupport
import Testing

@testable import PagebenchMetrics

@Suite("ResultRow CSV schema")
struct ResultRowTests {
    /// A row with every field set to a distinct, awkward value.
    static func sampleRow(repetition: Int = 1) -> ResultRow {
        var row = ResultRow()
        row.timestampUTC = "2026-11-22T02:39:43Z"
        row.pagebenchVersion = "0.1.0"
        row.gitCommit = "0123456789abcdef0123456789abcdef01234567-dirty"
        row.swiftVersion = "6.3"
        row.buildConfiguration = "release"
        row.host = "bench, \"quoted\" host"
        row.cores = 2
        row.scenario = "empty-heavy"
        row.configHash = "9f2c4e1a7b3d5f60"
        row.seed = UInt64.max - 1
        row.pagerKind = "streaming"
        row.loadModel = "open-poisson"
        row.plannedDrainsPerSecond = 250.5
        row.concurrency = 64
        row.repetition = repetition
        row.limit = 10
        row.label = "limit=10 filter=category=0"
        row.filter = "category=0"
        row.read = "scan"
        row.continuation = "keyset"
        row.slos = "drain_latency_corrected_p99_ns<60ms;error_rate<0.01"
        row.targetDurationSeconds = 10
        row.warmupSeconds = 1.5
        var metrics = TaskMetrics()
        for page in 0..<9 {
            metrics.recordPage(
                itemCount: page % 3 == 0 || page == 8 ? 0 : page,
                scannedCount: 10,
                scannedBytes: 4_096 + page,
                hasNextToken: page != 8,
                latencyNanoseconds: UInt64(1_000 + page * 977)
            )
        }
        metrics.recordDrain(pageCount: 5, latencyNanoseconds: 50_000, correctedLatencyNanoseconds: 70_000)
        metrics.recordDrain(pageCount: 4, latencyNanoseconds: 40_000, correctedLatencyNanoseconds: 41_000)
        metrics.recordCancellation(latencyNanoseconds: 120_000, pagesAfterCancel: 1)
        metrics.retries = 3
        metrics.throttles = 4
        metrics.missedStarts = 2
        metrics.lateStarts = 6
        metrics.recordError(.throttled)
        metrics.recordError(.tokenMismatch)
        row.apply(metrics, measuredSeconds: 0.125)
        row.applyResources(
            cpu: CPUTime(userSeconds: 0.25, systemSeconds: 0.0625),
            allocationRequests: 1_234,
            peakAllocatedBytes: 12_345_678,
            peakRSSBytes: 98_765_432
        )
        row.measurementOverheadRatio = 1.0734
        row.harnessOverheadRatio = 1.62
        row.instructionsPerPage = 5_210.75
        row.cutOffDrains = 3
        row.cutOffPages = 7
        row.responseBytes = 4096
        row.warmupRequests = 12
        row.startedDrainsPerSecond = 17.5
        return row
    }

    @Test("golden header: changing columns must bump schema_version and update this test and docs/csv-columns.md")
    func goldenHeader() {
        let golden = """
            schema_version,timestamp_utc,pagebench_version,git_commit,swift_version,build_configuration,host,cores,scenario,config_hash,seed,pager_kind,load_model,target_drains_per_s,concurrency,repetition,limit,target_drains,target_duration_s,warmup_s,pages_per_s,items_per_s,scanned_bytes_per_s,drains_per_s,drains,pages,items,scanned_items,scanned_bytes,empty_pages_wasted,empty_pages_final,empty_page_rate,pages_per_drain_mean,pages_per_drain_max,page_latency_p50_ns,page_latency_p90_ns,page_latency_p99_ns,page_latency_p999_ns,page_latency_max_ns,drain_latency_p50_ns,drain_latency_p90_ns,drain_latency_p99_ns,drain_latency_p999_ns,drain_latency_max_ns,drain_latency_corrected_p50_ns,drain_latency_corrected_p90_ns,drain_latency_corrected_p99_ns,drain_latency_corrected_p999_ns,drain_latency_corrected_max_ns,missed_starts,cancellations,cancel_latency_p50_ns,cancel_latency_p90_ns,cancel_latency_p99_ns,cancel_latency_p999_ns,cancel_latency_max_ns,pages_after_cancel,retries,throttles,errors_throttled,errors_fault,errors_invalid_token,errors_token_mismatch,errors_validation,errors_other,target_kind,target_hash,http_responses,target_errors_transport,target_errors_unauthorized,target_errors_http_status,target_errors_not_json,target_errors_missing_items,target_errors_bad_continuation,target_errors_graphql,target_errors_api,target_errors_repeated_continuation,consumed_capacity_units,cpu_user_s,cpu_system_s,allocations,allocations_per_page,allocation_counting,peak_allocated_bytes,peak_rss_bytes,measurement_overhead_ratio,harness_overhead_ratio,duration_s,partial,slo_held,stage,stage_start_s,stage_pagers_from,stage_pagers_to,stage_rate_from,stage_rate_to,duplicate_items,skipped_items,inconsistent_drains,watch_refreshes,watch_latency_p50_ns,watch_latency_p90_ns,watch_latency_p99_ns,watch_latency_p999_ns,watch_latency_max_ns,late_starts,instructions_per_page,label,filter,read,continuation,slos,page_latency_histogram,cut_off_drains,cut_off_pages,response_bytes,warmup_requests,started_drains_per_s,page_latency_min_ns,page_latency_p10_ns,drain_latency_histogram
            """
        #expect(ResultRow.csvHeader.joined(separator: ",") == golden)
        #expect(ResultRow.currentSchemaVersion == 10)
        #expect(Set(ResultRow.csvHeader).count == ResultRow.csvHeader.count, "column names are unique")
    }

    @Test("every column has a unit or is text/context, a description, and snake_case name")
    func registryIsComplete() {
        for column in ResultRow.columnDescriptors + TimeSeriesRow.columnDescriptors {
            #expect(!column.summary.isEmpty, "\(column.name)")
            #expect(column.name.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" }, "\(column.name)")
            if (column.kind == .measured || column.kind == .deterministic) && column.type != .text {
                #expect(!column.unit.isEmpty, "\(column.name) needs a unit")
            }
            if column.name.hasSuffix("_ns") { #expect(column.unit == "ns") }
            if column.name.hasSuffix("_bytes") { #expect(column.unit == "bytes") }
            if column.name.hasSuffix("_per_s") {
                #expect(column.unit.hasSuffix("/s"), "\(column.name)")
            } else if column.name.hasSuffix("_s") {
                #expect(column.unit == "s", "\(column.name)")
            }
        }
    }

    @Test("every task metric has a column")
    func issueFourColumns() {
        let names = Set(ResultRow.csvHeader)
        for required in [
            "schema_version", "timestamp_utc", "git_commit", "swift_version", "host", "cores", "scenario",
            "config_hash", "seed", "pager_kind", "concurrency", "repetition", "pages_per_s", "items_per_s",
            "scanned_bytes_per_s", "drains_per_s", "empty_pages_wasted", "empty_pages_final", "pages_per_drain_mean",
            "pages_per_drain_max", "page_latency_p50_ns", "page_latency_p90_ns", "page_latency_p99_ns",
            "page_latency_p999_ns", "page_latency_max_ns", "drain_latency_p99_ns", "drain_latency_corrected_p99_ns",
            "missed_starts", "cancel_latency_p50_ns", "cancel_latency_p99_ns", "cancel_latency_max_ns",
            "pages_after_cancel", "retries", "throttles", "errors_throttled", "cpu_user_s", "cpu_system_s",
            "peak_allocated_bytes", "allocations_per_page", "peak_rss_bytes", "measurement_overhead_ratio",
        ] {
            #expect(names.contains(required), "missing column \(required)")
        }
    }

    @Test("per-task metrics land in the row with the right arithmetic (H1 empty pages)")
    func arithmetic() {
        let row = Self.sampleRow()
        #expect(row.pages == 9)
        #expect(row.emptyPagesWasted == 3)  // pages 0, 3, 6: zero items and a token
        #expect(row.emptyPagesFinal == 1)  // page 8: zero items, no token
        #expect(row.emptyPageRate == 3.0 / 9.0)
        #expect(row.items == 1 + 2 + 4 + 5 + 7)
        #expect(row.scannedBytes == 9 * 4_096 + 36)
        #expect(row.pagesPerSecond == 72)
        #expect(row.pagesPerDrainMean == 4.5)
        #expect(row.pagesPerDrainMax == 5)
        #expect(row.drainLatencyCorrected?.maxNanoseconds == 70_000)
        #expect(row.cancellationLatency?.p50Nanoseconds == 120_000)
        #expect(row.missedStarts == 2)
        #expect(row.lateStarts == 6)
        #expect(row.errors.total == 2)
        #expect(row.allocationsPerPage == 1_234.0 / 9.0)
        #expect(row.pageLatency?.maxNanoseconds == 1_000 + 8 * 977)
    }

    @Test("ResultRow → CSV → ResultRow is the identity, for full rows and rows with empty optional columns")
    func roundTrip() throws {
        var closed = Self.sampleRow(repetition: 2)
        closed.loadModel = "closed"
        closed.plannedDrainsPerSecond = nil
        closed.drainLatencyCorrected = nil
        closed.missedStarts = nil
        closed.lateStarts = nil
        closed.cancellationLatency = nil
        closed.pageLatency = nil
        closed.measurementOverheadRatio = nil
        closed.targetDurationSeconds = nil
        closed.plannedDrains = 1_000
        let rows = [Self.sampleRow(), closed, ResultRow.fixture()]
        let text = try ResultRow.csvText(rows)
        let parsed = try ResultRow.parseCSV(text, file: "r.csv")
        #expect(parsed == rows)
        #expect(try ResultRow.csvText(parsed) == text)
        let crlf = try ResultRow.csvText(rows, writer: CSVWriter(lineEnding: .crlf))
        #expect(try ResultRow.parseCSV(crlf, file: "r.csv") == rows)
        #expect(try ResultRow.parseCSV("\u{FEFF}" + text, file: "r.csv") == rows)
    }

    @Test("columns may come in any order")
    func reorderedColumns() throws {
        let row = Self.sampleRow()
        let header = ResultRow.csvHeader
        let fields = row.csvFields
        let order = Array(header.indices.reversed())
        let text = CSVWriter().table(header: order.map { header[$0] }, records: [order.map { fields[$0] }])
        #expect(try ResultRow.parseCSV(text, file: "r.csv") == [row])
    }

    /// The sample row's CSV with one cell replaced.
    static func text(replacing column: String, with value: String) throws -> (String, column: Int) {
        let header = ResultRow.csvHeader
        var fields = sampleRow().csvFields
        let index = header.firstIndex(of: column)!
        fields[index] = value
        let line = fields.map(CSVWriter.escape).joined(separator: ",")
        let prefix = fields[..<index].map(CSVWriter.escape).joined(separator: ",")
        return (header.joined(separator: ",") + "\n" + line + "\n", prefix.unicodeScalars.count + (index > 0 ? 2 : 1))
    }

    static func expectMalformed(_ text: String, line: Int?, column: Int?, _ fragment: String) {
        #expect {
            try ResultRow.parseCSV(text, file: "bad.csv")
        } throws: { error in
            guard let error = error as? MetricsError else { return false }
            return error.kind == .malformedInput && error.file == "bad.csv" && error.line == line
                && error.column == column && error.message.contains(fragment)
        }
    }

    @Test(
        "a schema_version 1 file, without harness_overhead_ratio and the target columns, reads as the current version with those cells empty"
    )
    func readsVersionOne() throws {
        var row = Self.sampleRow()
        row.harnessOverheadRatio = nil
        row.lateStarts = nil
        row.clearSchema6Columns()
        row.instructionsPerPage = nil
        let lacking = try #require(ResultRow.earlierSchemaVersions[1])
        #expect(lacking.contains("harness_overhead_ratio") && lacking.contains("target_kind"))
        let keep = ResultRow.csvHeader.indices.filter { !lacking.contains(ResultRow.csvHeader[$0]) }
        let header = keep.map { ResultRow.csvHeader[$0] }
        var fields = keep.map { row.csvFields[$0] }
        fields[0] = "1"
        let text = CSVWriter().table(header: header, records: [fields])
        #expect(try ResultRow.parseCSV(text, file: "v1.csv") == [row])
        // The same header claiming the current version lacks a column.
        fields[0] = String(ResultRow.currentSchemaVersion)
        Self.expectMalformed(
            CSVWriter().table(header: header, records: [fields]),
            line: 2,
            column: nil,
            "which the header lacks"
        )
    }

    @Test(
        "bad numbers name the column, line and column number",
        arguments: [
            ("pages", "12x", "expected an integer"),
            ("seed", "-1", "non-negative integer"),
            ("pages_per_s", "nan", "finite decimal"),
            ("pages_per_s", "0x1p3", "finite decimal"),
            ("cpu_user_s", "1,5", "finite decimal"),
            ("pages", "", "is empty but requires"),
            ("page_latency_p90_ns", "", "other columns of its group"),
            ("schema_version", "11", "schema_version 11"),
            // A version-1 to -8 row in a file with the version-9 header (all columns present).
            ("schema_version", "1", "schema_version 1"),
            ("schema_version", "2", "schema_version 2"),
            ("schema_version", "3", "schema_version 3"),
            // Issue 24: well-formed cells that no run writes, refused by every reader.
            ("pages", "-5", "column 'pages' is -5; no figure pagebench writes is negative"),
            ("pages_per_s", "-1.5", "column 'pages_per_s' is -1.5; no figure pagebench writes is negative"),
            ("page_latency_p50_ns", "999999999", "above page_latency_p90_ns"),
            ("drain_latency_p999_ns", "999999999", "above drain_latency_max_ns"),
            ("partial", "2", "column 'partial' is 2; it is 0 or 1"),
            ("concurrency", "0", "column 'concurrency' is 0; it is at least 1"),
            ("repetition", "0", "column 'repetition' is 0; it is at least 1"),
            ("empty_page_rate", "1.5", "a share of the pages is at most 1"),
            ("empty_pages_wasted", "100", "more empty pages than pages"),
            ("scenario", "", "column 'scenario' is empty but requires a text value"),
            ("config_hash", "", "column 'config_hash' is empty"),
            ("schema_version", "4", "schema_version 4"),
            ("schema_version", "5", "schema_version 5"),
            ("schema_version", "6", "schema_version 6"),
            ("schema_version", "7", "schema_version 7"),
            ("schema_version", "8", "schema_version 8"),
            ("schema_version", "9", "schema_version 9"),
        ]
    )
    func badNumbers(column: String, value: String, fragment: String) throws {
        let (text, position) = try Self.text(replacing: column, with: value)
        Self.expectMalformed(text, line: 2, column: position, fragment)
    }

    @Test("wrong column count, missing header, unknown, duplicate and missing columns, blank line, empty file")
    func structuralErrors() throws {
        let header = ResultRow.csvHeader.joined(separator: ",")
        let row = Self.sampleRow().csvFields.map(CSVWriter.escape).joined(separator: ",")
        let extra = header + "\n" + row + ",extra\n"
        Self.expectMalformed(
            extra,
            line: 2,
            column: row.unicodeScalars.count + 2,
            "found \(ResultRow.csvHeader.count + 1)"
        )
        Self.expectMalformed(header + "\n" + row + "\n1,2\n", line: 3, column: nil, "found 2")
        Self.expectMalformed(header + "\n\n" + row + "\n", line: 2, column: nil, "blank line")
        Self.expectMalformed(row + "\n", line: 1, column: 1, "missing header")
        Self.expectMalformed("", line: 1, column: 1, "the file is empty")
        Self.expectMalformed(header + ",bogus\n", line: 1, column: header.count + 2, "unknown column 'bogus'")
        Self.expectMalformed(header + ",pages\n", line: 1, column: header.count + 2, "appears twice")
        let withoutPages = ResultRow.csvHeader.filter { $0 != "pages" }.joined(separator: ",")
        Self.expectMalformed(withoutPages + "\n", line: 1, column: nil, "lacks column 'pages'")
        // An unquoted text field with a comma shifts every later column.
        var fields = Self.sampleRow().csvFields.map(CSVWriter.escape)
        fields[ResultRow.csvHeader.firstIndex(of: "scenario")!] = "a,b"
        let shifted = fields.joined(separator: ",")
        let surplusColumn = shifted.unicodeScalars.count - fields.last!.unicodeScalars.count + 1
        Self.expectMalformed(header + "\n" + shifted + "\n", line: 2, column: surplusColumn, "unquoted comma")
    }

    /// Version 4 added `allocation_counting` (issue 12), the stage columns (H4) and the
    /// writes and watch columns (S25, P16): a version-3 file reads with them empty.
    @Test("a schema version 3 file still reads, allocation_counting, the stage, writes and watch columns empty")
    func version3Reads() throws {
        var row = Self.sampleRow()
        row.allocationCounting = "exact"
        let addedInVersion4: Set<String> = [
            "allocation_counting", "stage", "stage_start_s", "stage_pagers_from", "stage_pagers_to", "stage_rate_from",
            "stage_rate_to", "duplicate_items", "skipped_items", "inconsistent_drains", "watch_refreshes",
            "watch_latency_p50_ns", "watch_latency_p90_ns", "watch_latency_p99_ns", "watch_latency_p999_ns",
            "watch_latency_max_ns",
        ]
        let lacking = addedInVersion4.union([
            "late_starts", "instructions_per_page", "label", "filter", "read", "continuation", "slos",
            "page_latency_histogram",
        ])
        .union(Self.sinceVersion8)
        #expect(lacking == ResultRow.earlierSchemaVersions[3])
        #expect(row.stage == nil && row.stagePagersFrom == nil && row.stageRateFrom == nil)
        let keep = ResultRow.csvHeader.indices.filter { !lacking.contains(ResultRow.csvHeader[$0]) }
        let fields = row.csvFields
        let text =
            keep.map { ResultRow.csvHeader[$0] }.joined(separator: ",") + "\n" + "3"
            + keep.map { CSVWriter.escape(fields[$0]) }.joined(separator: ",").dropFirst(
                String(ResultRow.currentSchemaVersion).count
            ) + "\n"
        let rows = try ResultRow.parseCSV(text, file: "v3.csv")
        row.allocationCounting = ""
        row.lateStarts = nil
        row.clearSchema6Columns()
        row.instructionsPerPage = nil
        #expect(rows == [row])
    }

    /// Version 5 added `late_starts` (H8) and `instructions_per_page` (H10): a version-4 file
    /// reads with both (and version 6's columns) empty.
    @Test("a schema version 4 file still reads with late_starts and instructions_per_page empty")
    func version4Reads() throws {
        var row = Self.sampleRow()
        let lacking: Set<String> = Self.sinceVersion8.union([
            "late_starts", "instructions_per_page", "label", "filter", "read", "continuation", "slos",
            "page_latency_histogram",
        ])
        #expect(ResultRow.earlierSchemaVersions[4] == lacking)
        let rows = try ResultRow.parseCSV(Self.text(of: row, version: 4, lacking: lacking), file: "v4.csv")
        row.lateStarts = nil
        row.instructionsPerPage = nil
        row.clearSchema6Columns()
        #expect(rows == [row])
    }

    /// Version 6 added `label`, `filter`, `read` and `continuation` at the end (issue 26): a
    /// version-5 file (main's, with `late_starts`) reads with them empty, and its rows still
    /// get labels where they are shown (``ConfigurationComparison/labels(_:files:)``).
    @Test("a schema version 5 file still reads with label, filter, read and continuation empty")
    func version5Reads() throws {
        var row = Self.sampleRow()
        let lacking: Set<String> = Self.sinceVersion8.union([
            "label", "filter", "read", "continuation", "slos", "page_latency_histogram",
        ])
        #expect(ResultRow.earlierSchemaVersions[5] == lacking)
        #expect(
            Array(ResultRow.csvHeader.suffix(14).prefix(6)) == [
                "label", "filter", "read", "continuation", "slos", "page_latency_histogram",
            ]
        )
        let rows = try ResultRow.parseCSV(Self.text(of: row, version: 5, lacking: lacking), file: "v5.csv")
        row.clearSchema6Columns()
        #expect(rows == [row])
        #expect(rows[0].schemaVersion == ResultRow.currentSchemaVersion)
        // A version-5 file holding version 6's columns is half-migrated: refused.
        #expect(throws: MetricsError.self) {
            try ResultRow.parseCSV(Self.text(of: Self.sampleRow(), version: 5, lacking: []), file: "v5-mixed.csv")
        }
    }

    /// The columns version 9 added (issue 35): the fast end of page latency.
    static let addedInVersion9: Set<String> = ["page_latency_min_ns", "page_latency_p10_ns"]
    /// The column version 10 added (issue 36): the whole drain latency histogram.
    static let addedInVersion10: Set<String> = ["drain_latency_histogram"]

    /// Version 10 added `drain_latency_histogram` at the end (issue 36): a version-9 file reads
    /// with it empty; `export --format hgrm` then writes no drain latency distribution for it.
    @Test("a schema version 9 file still reads with drain_latency_histogram empty")
    func version9Reads() throws {
        var row = Self.sampleRow()
        #expect(row.drainLatencyHistogram.hasPrefix("hdr1 "))
        #expect(ResultRow.earlierSchemaVersions[9] == Self.addedInVersion10)
        #expect(ResultRow.csvHeader.last == "drain_latency_histogram")
        let rows = try ResultRow.parseCSV(
            Self.text(of: row, version: 9, lacking: Self.addedInVersion10),
            file: "v9.csv"
        )
        row.clearSchema10Columns()
        #expect(rows == [row])
        #expect(rows[0].schemaVersion == 10)
        #expect(throws: MetricsError.self) {
            try ResultRow.parseCSV(Self.text(of: Self.sampleRow(), version: 9, lacking: []), file: "v9-mixed.csv")
        }
    }

    /// Version 9 added `page_latency_min_ns` and `page_latency_p10_ns` at the end (issue 35): a
    /// version-8 file reads with them empty; the current version fills them from the pages.
    @Test("a schema version 8 file still reads with the fast end of page latency empty")
    func version8Reads() throws {
        var row = Self.sampleRow()
        #expect(row.pageLatencyMinNanoseconds == 1_000 && row.pageLatencyP10Nanoseconds == 1_000)
        let lacking = Self.addedInVersion9.union(Self.addedInVersion10)
        #expect(ResultRow.earlierSchemaVersions[8] == lacking)
        #expect(
            Array(ResultRow.csvHeader.suffix(3)) == [
                "page_latency_min_ns", "page_latency_p10_ns", "drain_latency_histogram",
            ]
        )
        let rows = try ResultRow.parseCSV(Self.text(of: row, version: 8, lacking: lacking), file: "v8.csv")
        row.clearSchema9Columns()
        #expect(rows == [row])
        #expect(rows[0].schemaVersion == 10)
    }

    /// Version 7 added `page_latency_histogram` at the end (issue 36): a version-6 file reads
    /// with it empty; one of version 6 holding it is half-migrated and refused.
    @Test("a schema version 6 file still reads with page_latency_histogram empty")
    func version6Reads() throws {
        var row = Self.sampleRow()
        #expect(row.pageLatencyHistogram.hasPrefix("hdr1 "))
        let lacking = Self.sinceVersion8.union(["page_latency_histogram"])
        #expect(ResultRow.earlierSchemaVersions[6] == lacking)
        let rows = try ResultRow.parseCSV(Self.text(of: row, version: 6, lacking: lacking), file: "v6.csv")
        row.pageLatencyHistogram = ""
        row.clearSchema8Columns()
        row.clearSchema9Columns()
        #expect(rows == [row])
        #expect(throws: MetricsError.self) {
            try ResultRow.parseCSV(Self.text(of: Self.sampleRow(), version: 6, lacking: []), file: "v6-mixed.csv")
        }
    }

    /// The columns version 8 added (issue 35).
    static let addedInVersion8: Set<String> = [
        "cut_off_drains", "cut_off_pages", "response_bytes", "warmup_requests", "started_drains_per_s",
    ]
    /// The columns versions 8 and 9 added: what a file of version 7 or earlier lacks besides its own.
    static let sinceVersion8 = addedInVersion8.union(addedInVersion9).union(addedInVersion10)

    /// Version 8 added the cut-off work of time-bound phases, a real target's response bytes,
    /// the warm-up's requests and the started drains per second at the end (issue 35): a
    /// version-7 file reads with them empty (0 cut off).
    @Test("a schema version 7 file still reads with issue 35's columns empty")
    func version7Reads() throws {
        var row = Self.sampleRow()
        #expect(ResultRow.earlierSchemaVersions[7] == Self.sinceVersion8)
        #expect(
            Array(ResultRow.csvHeader.suffix(8).prefix(5)) == [
                "cut_off_drains", "cut_off_pages", "response_bytes", "warmup_requests", "started_drains_per_s",
            ]
        )
        let rows = try ResultRow.parseCSV(Self.text(of: row, version: 7, lacking: Self.sinceVersion8), file: "v7.csv")
        row.clearSchema8Columns()
        row.clearSchema9Columns()
        #expect(rows == [row])
        #expect(rows[0].schemaVersion == ResultRow.currentSchemaVersion)
    }

    /// The histogram cell reads back to the recorder the row's percentiles came from (issue 36).
    @Test func pageLatencyHistogramReadsBackToThePercentiles() throws {
        let row = try #require(try ResultRow.parseCSV(ResultRow.csvText([Self.sampleRow()]), file: "r.csv").first)
        let recorder = try LatencyRecorder(serialized: row.pageLatencyHistogram)
        #expect(recorder.percentiles == row.pageLatency)
    }

    /// `row` as a file of `version` without the columns `lacking`.
    static func text(of row: ResultRow, version: Int, lacking: Set<String>) -> String {
        let keep = ResultRow.csvHeader.indices.filter { !lacking.contains(ResultRow.csvHeader[$0]) }
        let fields = row.csvFields
        return keep.map { ResultRow.csvHeader[$0] }.joined(separator: ",") + "\n" + "\(version)"
            + keep.map { CSVWriter.escape(fields[$0]) }.joined(separator: ",").dropFirst(
                String(ResultRow.currentSchemaVersion).count
            ) + "\n"
    }

    /// Issue 14 added the target columns in version 3: a version-2 file (without them, its
    /// rows saying schema_version 2) still reads, with the target columns blank; anything in
    /// between (some new columns, or version 3 without them) is refused.
    @Test("a schema version 2 file still reads; a half-migrated one does not")
    func previousSchemaVersionReads() throws {
        var row = Self.sampleRow()
        row.lateStarts = nil
        row.clearSchema6Columns()
        row.instructionsPerPage = nil
        let added = try #require(ResultRow.earlierSchemaVersions[2])
        let keep = ResultRow.csvHeader.indices.filter { !added.contains(ResultRow.csvHeader[$0]) }
        let header = keep.map { ResultRow.csvHeader[$0] }.joined(separator: ",")
        let fields = row.csvFields
        let line =
            "2"
            + keep.map { CSVWriter.escape(fields[$0]) }.joined(separator: ",").dropFirst(
                String(ResultRow.currentSchemaVersion).count
            )
        let rows = try ResultRow.parseCSV(header + "\n" + line + "\n", file: "v2.csv")
        #expect(rows == [row])
        #expect(rows[0].targetKind.isEmpty && rows[0].consumedCapacityUnits == nil)

        let version3 = "4" + line.dropFirst()
        #expect(throws: MetricsError.self) { try ResultRow.parseCSV(header + "\n" + version3 + "\n", file: "v3.csv") }
        let withKind = header + ",target_kind\n" + line + ",http\n"
        #expect(throws: MetricsError.self) { try ResultRow.parseCSV(withKind, file: "half.csv") }
    }

    /// Version 4 added the writes (S25) and watching (P16) columns at the end: a version-3
    /// file still reads, with them empty.
    @Test("a schema version 3 file still reads with the writes and watch columns empty")
    func versionThreeReads() throws {
        var row = Self.sampleRow()
        row.duplicateItems = nil
        row.lateStarts = nil
        row.clearSchema6Columns()
        row.instructionsPerPage = nil
        let added = try #require(ResultRow.earlierSchemaVersions[3])
        #expect(added.contains("duplicate_items") && added.contains("watch_latency_p50_ns"))
        let keep = ResultRow.csvHeader.indices.filter { !added.contains(ResultRow.csvHeader[$0]) }
        let header = keep.map { ResultRow.csvHeader[$0] }.joined(separator: ",")
        let fields = row.csvFields
        let line =
            "3"
            + keep.map { CSVWriter.escape(fields[$0]) }.joined(separator: ",").dropFirst(
                String(ResultRow.currentSchemaVersion).count
            )
        let rows = try ResultRow.parseCSV(header + "\n" + line + "\n", file: "v3.csv")
        #expect(rows == [row])
        #expect(rows[0].skippedItems == nil && rows[0].watchLatency == nil)

        // A version-4 row with them round-trips.
        var metrics = TaskMetrics()
        var counts = ConsistencyCounts()
        counts.record(duplicates: 3, skipped: 0)
        counts.record(duplicates: 0, skipped: 2)
        counts.record(duplicates: 0, skipped: 0)
        metrics.consistency = counts
        metrics.watchLatency = LatencyRecorder()
        metrics.watchLatency!.record(nanoseconds: 40_000)
        row.apply(metrics, measuredSeconds: 1)
        #expect(
            row.duplicateItems == 3 && row.skippedItems == 2 && row.inconsistentDrains == 2 && row.watchRefreshes == 1
        )
        #expect(try ResultRow.parseCSV(try ResultRow.csvText([row]), file: "v4.csv") == [row])
    }

    @Test("non-finite numbers are refused when writing")
    func nonFiniteRefused() {
        var row = ResultRow()
        row.pagesPerSecond = .infinity
        #expect(throws: MetricsError.self) { try ResultRow.csvText([row]) }
    }

    @Test("docs/csv-columns.md is the rendered registry (docs cannot drift)")
    func docsMatchRegistry() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/csv-columns.md").path
        let document = try TextFile.read(path)
        #expect(document.contains(CSVDocumentation.beginMarker), "docs/csv-columns.md lost its generated section")
        let updated = CSVDocumentation.updating(document)
        if updated != document, ProcessInfo.processInfo.environment["PAGEBENCH_UPDATE_DOCS"] == "1" {
            try AtomicFile.write(updated, to: path)
            return
        }
        #expect(
            updated == document,
            "docs/csv-columns.md is out of date; run PAGEBENCH_UPDATE_DOCS=1 swift test --filter docsMatchRegistry"
        )
    }

    @Test("markdown table escapes pipes and marks optional columns")
    func markdownTable() {
        let table = ColumnDescriptor.markdownTable([
            ColumnDescriptor(
                name: "a_ns",
                unit: "ns",
                polarity: .lowerIsBetter,
                kind: .measured,
                type: .unsignedInteger,
                isOptional: true,
                summary: "x | y"
            )
        ])
        #expect(table.contains("| `a_ns` | unsigned (optional) | ns | lower is better | measured | x \\| y |"))
    }
}

extension ResultRow {
    /// Empties the columns schema 6 (and 7) added, as reading an earlier file leaves them.
    mutating func clearSchema6Columns() {
        clearSchema8Columns()
        clearSchema9Columns()
        pageLatencyHistogram = ""  // schema 7
        label = ""
        filter = ""
        read = ""
        continuation = ""
        slos = ""
    }

    /// Empties the columns schema 9 added, as reading an earlier file leaves them.
    mutating func clearSchema9Columns() {
        pageLatencyMinNanoseconds = nil
        pageLatencyP10Nanoseconds = nil
        clearSchema10Columns()
    }

    /// Empties the column schema 10 added (issue 36), as reading an earlier file leaves it.
    mutating func clearSchema10Columns() {
        drainLatencyHistogram = ""
    }

    /// Empties the columns schema 8 added (issue 35), as reading an earlier file leaves them.
    mutating func clearSchema8Columns() {
        cutOffDrains = 0
        cutOffPages = 0
        responseBytes = nil
        warmupRequests = nil
        startedDrainsPerSecond = nil
    }
}
