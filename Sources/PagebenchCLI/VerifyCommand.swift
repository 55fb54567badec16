import ArgumentParser
import Foundation
import PagebenchBase
import PagebenchEngine
import PagebenchHarness
import PagebenchTargets
import PagebenchVerify

/// `pagebench verify`: is a real list API's pagination correct? Parses the flags, loads the
/// target, prints the plan to stderr and the report to stdout; the checking is
/// ``PagebenchVerify/Verifier``'s.
package struct VerifyCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a real list API's pagination against rules V1–V7 (docs/verify.md).",
        discussion: """
            Drains the target's partitions (--partition VALUE, or a sample of --partitions N) at each \
            of --limits, one at a time and then --concurrency at once, sends a token again and on a new \
            connection, sends tokens the API never issued and requests it must refuse, and prints each \
            rule's verdict (holds, broken, not applicable, could not tell) with the evidence of a broken \
            one. Read-only, rate-limited and bounded; the plan is printed to stderr before the first \
            request. SIGINT or SIGTERM stops it after the request in flight and prints the report of \
            what was seen (exit 130 or 143). Exit codes: 0 no rule broken, 1 a rule broken, 64 invalid \
            arguments, 65 invalid target file, 66 missing target file, 69 the first page failed (target \
            down, TLS, 401/403, not a page).
            """
    )

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The API to verify (kinds http, graphql, dynamodb; docs/file-formats.md).",
            valueName: "file"
        )
    )
    package var targetFile: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Verify this partition value (listed in the target or not).", valueName: "value")
    )
    package var partition: String?

    @Option(
        parsing: .unconditional,
        help: "Without --partition: how many of the target's partitions to sample, spread over its list (1–1000)."
    )
    package var partitions = 3

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The limits to drain at, comma-separated (each 1–2147483647).", valueName: "list")
    )
    package var limits = "1,10,100"

    @Option(parsing: .unconditional, help: "Drains at once for V7 (1–64).")
    package var concurrency = 3

    @Option(parsing: .unconditional, help: "Requests per second at most, over all connections (0.1–1000).")
    package var rate = 5.0

    @Option(
        parsing: .unconditional,
        help: "Requests in all at most (10–1000000); past it, what is left is 'could not tell'."
    )
    package var maxRequests = 2000

    @Option(parsing: .unconditional, help: "Pages one drain may take before it is cut (2–1000000).")
    package var maxPages = 1000

    @Option(parsing: .unconditional, help: "Seconds the verification may take (1–86400); no request starts after.")
    package var maxSeconds = 600.0

    @Flag(
        help:
            "The API binds a token to its limit (as serve's strict token policy; the target file's \"tokensBind\": [\"limit\"] says the same): V5 also sends one at another limit."
    )
    package var tokenBindsLimit = false

    @Option(parsing: .unconditional, help: "Output format.")
    package var format: VerifyFormat = .text

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "HTTPS targets: trust the certificates in this PEM file instead of the system store.",
            valueName: "file"
        )
    )
    package var caFile: String?

    @Flag(help: "HTTPS targets: accept any certificate and host name (self-signed test servers only).")
    package var insecure = false

    @Flag(help: "Do not print the plan to stderr.")
    package var quiet = false

    package init() {}

    var options: VerifyOptions {
        get throws {
            var parsed: [Int] = []
            for part in limits.split(separator: ",", omittingEmptySubsequences: false) {
                guard let limit = Int(part.trimmingCharacters(in: .whitespaces)) else {
                    throw ValidationError("--limits: '\(part)' is not a whole number; give e.g. 1,10,100")
                }
                parsed.append(limit)
            }
            return VerifyOptions(
                partition: partition,
                partitionSample: partitions,
                limits: parsed,
                concurrency: concurrency,
                rate: rate,
                maxRequests: maxRequests,
                maxPagesPerDrain: maxPages,
                maxSeconds: maxSeconds,
                tokenBindsLimit: tokenBindsLimit,
                caFile: caFile,
                insecure: insecure
            )
        }
    }

    package func validate() throws {
        let options = try self.options
        do {
            try options.validate()
        } catch {
            throw ValidationError(error.message)
        }
    }

    package func run() async throws {
        let report: VerifyReport
        let interruption = Interruption()
        do {
            report = try await SignalTrap.run(
                interruption,
                message: "no further request is sent; the report judges what was seen"
            ) {
                try await execute(interruption: interruption, announce: { quiet ? () : StandardError.write($0 + "\n") })
            }
        } catch {
            throw error.report()
        }
        try CommandError.reporting { try StandardOutput.write(report.rendered(format)) }
        if let signal = interruption.signal { throw ExitCodes.interrupted(signal: signal).code }
        if report.broken { throw ExitCodes.ruleBroken.code }
    }

    /// Loads the target, announces the plan and verifies.
    ///
    /// - Throws: ``CommandError``: 64, 65, 66 or 69 (docs/exit-codes.md).
    package func execute(
        interruption: Interruption = Interruption(),
        announce: (String) -> Void
    ) async throws(CommandError)
        -> VerifyReport
    {
        let target = try Self.loadTarget(targetFile)
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw .usage("--ca-file \(caFile): no such file or not readable; check the path")
        }
        do {
            let verifier = try Verifier(target: target, options: try options)
            announce(try await verifier.plan())
            return try await verifier.run(stopped: {
                interruption.signal.map { "stopped by \(SignalName.of($0)) (what was not sent could not tell)" }
            })
        } catch let error as VerifyError {
            throw CommandError(error)
        } catch let error as ValidationError {
            throw .usage(error.message)
        } catch {
            throw CommandError(wrapping: error)
        }
    }

    /// The target file: 66 when it is missing, 65 when it cannot be used.
    static func loadTarget(_ path: String) throws(CommandError) -> Target {
        do {
            return try Target.load(path: path)
        } catch {
            throw error.isMissingFile ? .missingInput(error.message) : .invalidInput(error.message)
        }
    }
}

extension VerifyFormat: ExpressibleByArgument {}

extension CommandError {
    /// A verification's error by its kind: 64, 65, 66, 69 (unreachable, as `run`).
    init(_ error: VerifyError) {
        switch error.kind {
        case .usage: self = .usage(error.message)
        case .invalidInput: self = .invalidInput(error.message)
        case .missingInput: self = .missingInput(error.message)
        case .unreachable: self = .unavailable(error.message)
        }
    }
}
