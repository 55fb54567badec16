import Foundation
import PagebenchHarness
import Testing

/// Issue 27: one grammar for durations and rates on the command line, the one stages use.
@Suite struct CommandLineArgumentTests {
    @Test func durationsTakeUnitsOrBareSeconds() throws {
        #expect(try DurationArgument.seconds("2s", flag: "--duration") == 2)
        #expect(try DurationArgument.seconds("500ms", flag: "--duration") == 0.5)
        #expect(try DurationArgument.seconds("250us", flag: "--duration") == 0.000_25)
        #expect(try DurationArgument.seconds("1.5", flag: "--duration") == 1.5)
        #expect(try DurationArgument.seconds(" 3 s ", flag: "--duration") == 3)
    }

    /// Issue 35: `--duration 2m` was refused; minutes and hours are durations wherever one is
    /// read (flags, stages, the scenario's retry backoffs), through the one parser.
    @Test func durationsTakeMinutesAndHoursEverywhere() throws {
        #expect(try DurationArgument.seconds("2m", flag: "--duration") == 120)
        #expect(try DurationArgument.seconds("1.5h", flag: "--step-duration") == 5400)
        #expect(try DurationArgument.seconds("2ms", flag: "--duration") == 0.002)
        let stages = try StagePlan(parsing: "1m:64,30s:0")
        #expect(stages.stages.map(\.durationNanoseconds) == [60_000_000_000, 30_000_000_000])
        let retry = try JSONDecoder().decode(Workload.self, from: Data(#"{"retry": {"maxBackoff": "1m"}}"#.utf8))
        #expect(retry.retry.maxBackoffNanoseconds == 60_000_000_000)
    }

    @Test func aDurationWithoutAUnitOrNumberIsRefusedNamingTheFlag() {
        for text in ["2x", "s", "", "inf", "2 minutes", "-1s"] {
            #expect(throws: HarnessError.self, "\(text)") { try DurationArgument.seconds(text, flag: "--warmup") }
        }
        do {
            _ = try DurationArgument.seconds("2x", flag: "--warmup")
        } catch {
            #expect(error.message.contains("--warmup: '2x' is not a duration"))
            #expect(error.message.contains("ns, us, ms, s, m or h"))
        }
    }

    /// Issue 35: a load's rate is drains per second; an error says so, and how to ask for requests.
    @Test func aLoadsRateErrorSaysItsUnit() {
        for text in ["open-fixed:300rps", "open-fixed:300req/s", "open-poisson:fast", "open"] {
            do {
                _ = try LoadModel(parsing: text, field: "--load")
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.message.contains("drains per second"), "\(error.message)")
                #expect(error.message.contains("not requests"), "\(error.message)")
                #expect(error.message.contains("--drain first:1"), "\(error.message)")
            }
        }
    }

    @Test func ratesTakePerSecondOrABareNumber() throws {
        #expect(try RateArgument.drainsPerSecond("500/s", flag: "--from") == 500)
        #expect(try RateArgument.drainsPerSecond("0.5", flag: "--from") == 0.5)
        #expect(throws: HarnessError.self) { try RateArgument.drainsPerSecond("500/m", flag: "--from") }
        #expect(throws: HarnessError.self) { try RateArgument.drainsPerSecond("fast", flag: "--from") }
    }

    @Test func openLoopRatesTakePerSecondAsStagesDo() throws {
        #expect(try LoadModel(parsing: "open-fixed:200/s") == LoadModel(parsing: "open-fixed:200"))
        #expect(try LoadModel(parsing: "open-poisson:2.5/s") == .open(drainsPerSecond: 2.5, poisson: true))
        #expect(throws: HarnessError.self) { try LoadModel(parsing: "open-fixed:200/min") }
    }
}
