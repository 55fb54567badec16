import ArgumentParser
import PagebenchMetrics
import PagebenchReport

#if canImport(Glibc)
import Glibc
#endif

/// Maps library errors to the documented exit codes (README "Exit codes") after printing them.
///
/// swift-argument-parser turns any error it does not know into exit 1, which `check` reserves
/// for "regression"; so commands catch library errors, print `pagebench: file:line:column:
/// message` to standard error, and exit with the code that names the kind of failure.
enum CLIFailure {
    /// Runs `body`, converting ``ReportError`` and ``MetricsError`` into a printed message and an ``ExitCode``.
    static func mapErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ReportError {
            printError(error.description)
            throw exitCode(for: error.kind)
        } catch let error as MetricsError {
            printError(error.description)
            throw exitCode(for: ReportError(error).kind)
        }
    }

    static func exitCode(for kind: ReportError.Kind) -> ExitCode {
        switch kind {
        case .malformedInput: ExitCodes.dataError
        case .inputUnavailable: ExitCodes.noInput
        case .invalidRequest: ExitCodes.usage
        case .outputFailed: ExitCodes.cannotCreate
        }
    }

    static func printError(_ message: String) {
        var standardError = StandardError()
        print("pagebench: " + message, to: &standardError)
    }

    /// Writes to file descriptor 2.
    struct StandardError: TextOutputStream {
        mutating func write(_ string: String) {
            var bytes = Array(string.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress! + offset, $0.count - offset) }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

extension OutputFormat: ExpressibleByArgument {}
