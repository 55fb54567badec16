import PagebenchEngine
import PagebenchHarness
import PagebenchMetrics
import PagebenchStore
import Testing

/// The one table from a command's errors (runs included: one command-failure type, issue 39)
/// to the documented exit codes (docs/exit-codes.md).
@Suite struct ExitCodeTableTests {
    @Test func eachRunFailureHasItsDocumentedCode() {
        let cases: [(CommandError, Int32)] = [
            (.usage("x"), 64), (.invalidInput("x"), 65), (.missingInput("x"), 66),
            (.targetUnavailable("x"), 69), (.countingUnavailable("x"), 69), (.internalFailure("x"), 70),
            (.workerFailed("x"), 71), (.cannotCreate("x"), 73), (.outputFailed("x"), 74), (.sloBroken("x"), 99),
            (.interrupted(signal: 2, "x"), 130), (.interrupted(signal: 15, "x"), 143),
        ]
        for (error, code) in cases {
            #expect(error.exitStatus.rawValue == code, "\(error)")
        }
    }

    @Test func libraryErrorsKeepTheirKindsCodes() {
        #expect(CommandError(HarnessError(.invalidScenario, "x")).exitStatus == ExitCodes.dataError)
        #expect(CommandError(HarnessError(.inputUnavailable, "x")).exitStatus == ExitCodes.noInput)
        #expect(CommandError(HarnessError(.outputFailed, "x")).exitStatus == ExitCodes.cannotCreate)
        #expect(CommandError(wrapping: HarnessError(.workerFailed, "x")).exitStatus == ExitCodes.workerFailed)
        struct Unexpected: Error {}
        let unexpected = CommandError(wrapping: Unexpected())
        #expect(unexpected.exitStatus == ExitCodes.software && unexpected.message.hasPrefix("internal error: "))
        #expect(CommandError(wrapping: CommandError.sloBroken("kept")).message == "kept")
    }

    /// `items`, `pages`, `serve`, `http-bench`, the store flags and standard output say what
    /// went wrong (``CommandError``); the table says which code that is.
    @Test func eachCommandFailureHasItsDocumentedCode() {
        let cases: [(CommandError, Int32)] = [
            (.usage("x"), 64), (.invalidInput("x"), 65), (.missingInput("x"), 66), (.unavailable("x"), 69),
            (.internalFailure("x"), 70), (.outputFailed("x"), 74),
            (CommandError(StoreError.invalidConfiguration("x")), 64),
            (CommandError(StoreError.invalidConfiguration("x"), fromFile: true), 65),
            (CommandError(StoreError(remote: .invalidToken, message: "x")), 65),
            (CommandError(StoreError(remote: .throttled, message: "x")), 69),
            (CommandError(HarnessError(.invalidScenario, "x")), 65),
            (CommandError(HarnessError(.inputUnavailable, "x")), 66),
            (CommandError(MetricsError(kind: .outputFailed, message: "x")), 73),
        ]
        for (error, code) in cases {
            #expect(error.exitStatus.rawValue == code, "\(error)")
            #expect(ExitCodes.code(for: error) == error.exitStatus)
            #expect(CommandError(wrapping: error).message == error.message)
        }
        struct Unexpected: Error {}
        let unexpected = CommandError(wrapping: Unexpected())
        #expect(unexpected.exitStatus == ExitCodes.software && unexpected.message.hasPrefix("internal error: "))
        #expect(CommandError(wrapping: CommandError.unavailable("kept")).message == "kept")
    }
}
