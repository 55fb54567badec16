import Foundation
import Synchronization

/// A `pagebench serve` child process on an ephemeral loopback port, for tests that need
/// real separate replicas. Every wait is bounded by a watchdog that kills the process.
package final class ServeProcess: Sendable {
    package let port: Int
    /// The first line it printed: `listening on http://127.0.0.1:PORT (…)`.
    package let banner: String
    private let process: Process
    /// Where the process's standard error goes, for ``diagnosis``.
    private let errorLog: URL

    package var target: String { "http://127.0.0.1:\(port)" }

    /// The `pagebench` executable next to the test bundle (`swift build` puts both in the
    /// same directory).
    package static func executable() throws -> URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        if directory.lastPathComponent == "MacOS" {  // an .xctest bundle on Darwin
            directory = directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        }
        let candidate = directory.appendingPathComponent("pagebench")
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
            throw TestFailure("no pagebench executable at \(candidate.path); run `swift build` before `swift test`")
        }
        return candidate
    }

    /// Starts `pagebench serve --port 0 ARGUMENTS…` and waits (at most 60 s) for its banner.
    package init(arguments: [String]) throws {
        let process = Process()
        process.executableURL = try Self.executable()
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0"] + arguments
        let output = Pipe()
        process.standardOutput = output
        let errorLog = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-serve-\(UUID()).err")
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errorLog)
        self.errorLog = errorLog
        try process.run()
        self.process = process
        let watchdog = Self.watchdog(process, seconds: 60)
        defer { watchdog.cancel() }
        // Blocking read of the first line; the watchdog ends it with EOF if the server hangs.
        var bytes: [UInt8] = []
        while !bytes.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            bytes.append(contentsOf: chunk)
        }
        let line = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        guard let range = line.range(of: "listening on http://127.0.0.1:"),
            let port = Int(line[range.upperBound...].prefix { $0.isNumber })
        else {
            process.terminate()
            throw TestFailure("pagebench serve did not print its port; it printed '\(line)'")
        }
        self.port = port
        banner = line
    }

    /// Sends `signal` and waits (at most 30 s) for the process to exit; returns its status.
    package func stop(signal: Int32 = SIGTERM) -> Int32 {
        kill(process.processIdentifier, signal)
        let watchdog = Self.watchdog(process, seconds: 30)
        process.waitUntilExit()
        watchdog.cancel()
        return process.terminationStatus
    }

    /// Kills the process with SIGKILL if not cancelled within `seconds`.
    private static func watchdog(_ process: Process, seconds: Int) -> DispatchWorkItem {
        let pid = process.processIdentifier
        let item = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds), execute: item)
        return item
    }

    /// Whether the process still runs (or how it ended) and what it wrote to standard
    /// error: for a test's failure message when a request to it fails.
    package var diagnosis: String {
        let state =
            process.isRunning
            ? "running"
            : "ended (\(process.terminationReason == .uncaughtSignal ? "signal" : "status") \(process.terminationStatus))"
        let errors = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
        return "serve on port \(port), pid \(process.processIdentifier): \(state); standard error: '\(errors)'"
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: errorLog)
    }
}
