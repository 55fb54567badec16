import ArgumentParser

/// Documented exit codes of the `pagebench` executable (README.md, "Exit codes").
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
    /// The store failed a request for a reason other than the caller's input, such as an
    /// injected fault or throttling that outlasted the retry policy (EX_UNAVAILABLE).
    public static let unavailable = ExitCode(69)
}
