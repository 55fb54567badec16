import PagebenchHarness
import PagebenchMetrics
import PagebenchStore

/// An exit status of the `pagebench` executable (0 to 255); the CLI exits with ``rawValue``.
package struct ExitStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }
    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    package var description: String { String(rawValue) }
}

/// Documented exit codes of the `pagebench` executable (docs/exit-codes.md).
///
/// They follow BSD `sysexits.h` where one applies, so scripts can tell a bad invocation
/// from bad data from a missing file.
package enum ExitCodes {
    /// Success.
    package static let success = ExitStatus(0)
    /// `pagebench check`: at least one regression (or an unallowed behaviour change).
    package static let regression = ExitStatus(1)
    /// `pagebench verify`: at least one rule (V1–V7) is broken; the report holds its evidence.
    package static let ruleBroken = ExitStatus(1)
    /// Invalid arguments or flags (EX_USAGE).
    package static let usage = ExitStatus(64)
    /// Invalid input data: a bad token, a token mismatch, a malformed CSV, scenario or
    /// configuration file (EX_DATAERR).
    package static let dataError = ExitStatus(65)
    /// An input file does not exist or cannot be read (EX_NOINPUT).
    package static let noInput = ExitStatus(66)
    /// An internal error pagebench did not expect (EX_SOFTWARE).
    package static let software = ExitStatus(70)
    /// `run --workers`: a worker process could not be started, was killed by a signal or
    /// exited with a failure; the shards of the workers that finished are kept (EX_OSERR).
    package static let workerFailed = ExitStatus(71)
    /// An output file could not be created (EX_CANTCREAT).
    package static let cannotCreate = ExitStatus(73)
    /// Writing to standard output failed (EX_IOERR): a full disk, `> /dev/full`.
    package static let ioError = ExitStatus(74)
    /// The store failed a request for a reason other than the caller's input, such as an
    /// injected fault or throttling that outlasted the retry policy (EX_UNAVAILABLE).
    package static let unavailable = ExitStatus(69)
    /// `run --slo`: the results were written, and at least one row broke a service-level
    /// objective (the code k6 uses for breached thresholds).
    package static let sloBroken = ExitStatus(99)

    /// `run`: SIGINT (130) or SIGTERM (143) stopped it; what was measured was written, the
    /// phase cut short marked `partial` (H6). The shell's convention for a signalled process.
    package static func interrupted(signal: Int32) -> ExitStatus { ExitStatus(128 + signal) }
}

extension ExitCodes {
    // The one table from library errors to exit codes.

    /// Every command's errors (``CommandError``: a run, `knee`, `items`, `pages`, `serve`,
    /// `http-bench`, the store flags, standard output, …): each kind of failure its documented code.
    package static func code(for error: CommandError) -> ExitStatus {
        switch error.code {
        case .usage: usage
        case .invalidInput: dataError
        case .missingInput: noInput
        case .unavailable: unavailable
        case .internalFailure: software
        case .outputFailed: ioError
        case .workerFailed: workerFailed
        case .cannotCreate: cannotCreate
        case .targetUnavailable, .countingUnavailable: unavailable
        case .sloBroken: sloBroken
        case .interrupted(let signal): interrupted(signal: signal)
        case .store(let code, let fromFile): Self.code(for: code, fromFile: fromFile)
        case .harness(let kind): Self.code(for: kind)
        case .metrics(let kind): Self.code(for: kind)
        }
    }

    /// Store errors: request errors 64, token errors 65, injected failures 69, a bad
    /// configuration 64 (flags) or 65 (`fromFile`).
    package static func code(for code: StoreError.Code, fromFile: Bool = false) -> ExitStatus {
        switch code {
        case .invalidLimit, .invalidSegment, .unknownPartition: usage
        case .invalidConfiguration: fromFile ? dataError : usage
        case .invalidToken, .tokenMismatch: dataError
        case .throttled, .injectedFault: unavailable
        }
    }

    /// Harness errors: scenarios and shards 65, flags 64, missing input 66, output 73,
    /// workers 71.
    package static func code(for kind: HarnessError.Kind) -> ExitStatus {
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
    package static func code(for kind: MetricsError.Kind) -> ExitStatus {
        switch kind {
        case .malformedInput, .invalidValue: dataError
        case .inputUnavailable: noInput
        case .invalidRequest: usage
        case .outputFailed, .statisticsUnavailable: cannotCreate
        }
    }
}
