import ArgumentParser
import PagebenchHarness
import PagebenchMetrics
import PagebenchStore

/// Documented exit codes of the `pagebench` executable (docs/exit-codes.md).
///
/// They follow BSD `sysexits.h` where one applies, so scripts can tell a bad invocation
/// from bad data from a missing file.
public enum ExitCodes {
    /// Success.
    public static let success = ExitCode(0)
    /// `pagebench check`: at least one regression (or an unallowed behaviour change).
    public static let regression = ExitCode(1)
    /// Invalid arguments or flags (EX_USAGE).
    public static let usage = ExitCode(64)
    /// Invalid input data: a bad token, a token mismatch, a malformed CSV, scenario or
    /// configuration file (EX_DATAERR).
    public static let dataError = ExitCode(65)
    /// An input file does not exist or cannot be read (EX_NOINPUT).
    public static let noInput = ExitCode(66)
    /// An internal error pagebench did not expect (EX_SOFTWARE).
    public static let software = ExitCode(70)
    /// `run --workers`: a worker process could not be started, was killed by a signal or
    /// exited with a failure; the shards of the workers that finished are kept (EX_OSERR).
    public static let workerFailed = ExitCode(71)
    /// An output file could not be created (EX_CANTCREAT).
    public static let cannotCreate = ExitCode(73)
    /// Writing to standard output failed (EX_IOERR): a full disk, `> /dev/full`.
    public static let ioError = ExitCode(74)
    /// The store failed a request for a reason other than the caller's input, such as an
    /// injected fault or throttling that outlasted the retry policy (EX_UNAVAILABLE).
    public static let unavailable = ExitCode(69)
    /// `run --slo`: the results were written, and at least one row broke a service-level
    /// objective (the code k6 uses for breached thresholds).
    public static let sloBroken = ExitCode(99)

    /// `run`: SIGINT (130) or SIGTERM (143) stopped it; what was measured was written, the
    /// phase cut short marked `partial` (H6). The shell's convention for a signalled process.
    public static func interrupted(signal: Int32) -> ExitCode { ExitCode(128 + signal) }
}

extension ExitCodes {
    // The one table from library errors to exit codes.

    /// Store errors: request errors 64, token errors 65, injected failures 69, a bad
    /// configuration 64 (flags) or 65 (`fromFile`).
    public static func code(for code: StoreError.Code, fromFile: Bool = false) -> ExitCode {
        switch code {
        case .invalidLimit, .invalidSegment, .unknownPartition: usage
        case .invalidConfiguration: fromFile ? dataError : usage
        case .invalidToken, .tokenMismatch: dataError
        case .throttled, .injectedFault: unavailable
        }
    }

    /// Harness errors: scenarios and shards 65, flags 64, missing input 66, output 73,
    /// workers 71.
    public static func code(for kind: HarnessError.Kind) -> ExitCode {
        switch kind {
        case .invalidScenario, .invalidShard: dataError
        case .invalidArgument: usage
        case .inputUnavailable: noInput
        case .outputFailed: cannotCreate
        case .workerFailed: workerFailed
        }
    }

    /// Results, thresholds and report errors: malformed or unrepresentable data 65, missing
    /// input 66, a request that cannot be served 64, output (and process statistics that
    /// could not be read for it) 73.
    public static func code(for kind: MetricsError.Kind) -> ExitCode {
        switch kind {
        case .malformedInput, .invalidValue: dataError
        case .inputUnavailable: noInput
        case .invalidRequest: usage
        case .outputFailed, .statisticsUnavailable: cannotCreate
        }
    }
}
