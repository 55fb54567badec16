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

    @Test func aDurationWithoutAUnitOrNumberIsRefusedNamingTheFlag() {
        for text in ["2x", "s", "", "inf", "2 minutes", "-1s"] {
            #expect(throws: HarnessError.self, "\(text)") { try DurationArgument.seconds(text, flag: "--warmup") }
        }
        do {
            _ = try DurationArgument.seconds("2x", flag: "--warmup")
        } catch {
            #expect(error.message.contains("--warmup: '2x' is not a duration"))
            #expect(error.message.contains("ns, us, ms or s"))
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
