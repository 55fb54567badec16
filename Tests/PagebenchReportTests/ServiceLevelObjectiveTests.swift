import PagebenchMetrics
import Testing

@testable import PagebenchReport

@Suite struct ServiceLevelObjectiveTests {
    func row(_ change: (inout ResultRow) -> Void) -> ResultRow {
        var row = ResultRow()
        row.scenario = "s"
        change(&row)
        return row
    }

    @Test func unitsConvertToTheColumnsOwn() throws {
        #expect(try ServiceLevelObjective(parsing: "page_latency_p99_ns<5ms").bound == 5_000_000)
        #expect(try ServiceLevelObjective(parsing: "page_latency_p99_ns < 250us").bound == 250_000)
        #expect(try ServiceLevelObjective(parsing: "page_latency_p99_ns<=1.5s").bound == 1_500_000_000)
        // Issue 35: minutes and hours too, through the one duration grammar.
        #expect(try ServiceLevelObjective(parsing: "drain_latency_p99_ns<2m").bound == 120_000_000_000)
        #expect(try ServiceLevelObjective(parsing: "drain_latency_p99_ns<1h").bound == 3_600_000_000_000)
        #expect(try ServiceLevelObjective(parsing: "page_latency_p99_ns<700").bound == 700)
        #expect(try ServiceLevelObjective(parsing: "drain_latency_corrected_p99_ns<200ms").bound == 200_000_000)
        #expect(try ServiceLevelObjective(parsing: "empty_page_rate<0.5").bound == 0.5)
        #expect(try ServiceLevelObjective(parsing: "error_rate<0.1%").bound == 0.001)
        #expect(try ServiceLevelObjective(parsing: "peak_rss_bytes<512MiB").bound == 512 * 1_048_576)
        #expect(try ServiceLevelObjective(parsing: "pages_per_s>=1.5M").bound == 1_500_000)
        let slo = try ServiceLevelObjective(parsing: "pages_per_s>=1.5M")
        #expect(slo.comparison == .atLeast && slo.column == "pages_per_s")
    }

    @Test func judgesRowsAndSaysByHowMuchABoundBroke() throws {
        let slo = try ServiceLevelObjective(parsing: "page_latency_p99_ns<5ms")
        let fast = row {
            $0.pageLatency = LatencyPercentiles(
                p50Nanoseconds: 1_000,
                p90Nanoseconds: 2_000,
                p99Nanoseconds: 4_000_000,
                p999Nanoseconds: 9_000_000,
                maxNanoseconds: 9_000_000
            )
        }
        let slow = row {
            $0.pageLatency = LatencyPercentiles(
                p50Nanoseconds: 1_000,
                p90Nanoseconds: 2_000,
                p99Nanoseconds: 6_000_000,
                p999Nanoseconds: 9_000_000,
                maxNanoseconds: 9_000_000
            )
        }
        #expect(slo.judge(fast) == .held(value: 4_000_000))
        #expect(slo.judge(slow) == .broke(value: 6_000_000, excess: 1_000_000))
        let message = try #require(slo.explain(slo.judge(slow), row: "default ×8 rep 1"))
        #expect(message.contains("default ×8 rep 1"))
        #expect(message.contains("6ms"))
        #expect(message.contains("1ms past the bound"))
        #expect(message.contains("20.0 %"))
        #expect(slo.explain(slo.judge(fast), row: "x") == nil)
        // Exactly at a strict bound breaks; at an inclusive one holds.
        let edge = row {
            $0.pageLatency = LatencyPercentiles(
                p50Nanoseconds: 1,
                p90Nanoseconds: 1,
                p99Nanoseconds: 5_000_000,
                p999Nanoseconds: 1,
                maxNanoseconds: 1
            )
        }
        #expect(slo.judge(edge) != .held(value: 5_000_000))
        #expect(try ServiceLevelObjective(parsing: "page_latency_p99_ns<=5ms").judge(edge) == .held(value: 5_000_000))
    }

    @Test func aMissingValueIsNotAMetSLO() throws {
        let slo = try ServiceLevelObjective(parsing: "cancel_latency_p99_ns<1ms")
        let verdict = slo.judge(row { _ in })
        #expect(verdict == .missing)
        #expect(slo.explain(verdict, row: "r")?.contains("could not be checked") == true)
    }

    @Test func errorRateCountsFailedDrainsAgainstAllDrains() throws {
        let slo = try ServiceLevelObjective(parsing: "error_rate<0.01")
        #expect(
            slo.judge(
                row {
                    $0.drains = 990
                    $0.errors.fault = 10
                }
            ) == .broke(value: 0.01, excess: 0)
        )
        #expect(
            slo.judge(
                row {
                    $0.drains = 999
                    $0.errors.other = 1
                }
            ) == .held(value: 0.001)
        )
        #expect(slo.judge(row { _ in }) == .held(value: 0))
    }

    @Test(arguments: [
        ("page_latency_p99_ns", "write COLUMN<BOUND"),
        ("page_latncy_p99_ns<5ms", "did you mean 'page_latency_p99_ns'"),
        ("scenario<5", "text column"),
        ("page_latency_p99_ns<5MiB", "write a duration"),
        ("page_latency_p99_ns<fast", "write a duration"),
        ("empty_page_rate<5ms", "percentage"),
        ("peak_rss_bytes<1ms", "size"),
        ("pages_per_s>", "write a number"),
    ])
    func badExpressionsAreRefusedNamingThePart(text: String, complaint: String) {
        do {
            _ = try ServiceLevelObjective(parsing: text)
            Issue.record("'\(text)' was accepted")
        } catch {
            #expect(error.kind == .invalidRequest)
            #expect(error.description.contains(complaint), "\(error.description)")
            #expect(error.description.contains(text))
        }
    }
}
