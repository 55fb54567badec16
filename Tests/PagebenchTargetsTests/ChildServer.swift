import Foundation
import PagebenchCLI
import PagebenchCLITestSupport
import PagebenchHarness
import Synchronization

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A server in a child process (a Python test server or `pagebench serve`) that prints
/// `listening on URL` once it accepts connections. Lines it prints before the banner are
/// kept (the moto fixture prints its expectations there). Every wait is bounded by a
/// watchdog; a server that dies first (a missing Python module) fails the test with its
/// standard error. Stops when its standard input closes or on SIGTERM.
final class ChildServer: Sendable {
    let url: String
    let linesBeforeBanner: [String]
    private let process: Process
    private let input: Pipe

    /// The directory of the Python test servers.
    static let serversDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Servers"
    )

    /// The `pagebench` executable next to the test binary (`swift build` puts both there).
    static func pagebench() throws -> String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidate = testBinary.deletingLastPathComponent().appendingPathComponent("pagebench").path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw TestFailure("no pagebench executable at \(candidate); run `swift build` before `swift test`")
        }
        return candidate
    }

    /// `python3 Servers/SCRIPT ARGUMENTS…`.
    static func python(
        _ script: String,
        _ arguments: [String] = [],
        environment: [String: String] = [:]
    ) throws -> ChildServer {
        try ChildServer(
            executable: "/usr/bin/env",
            arguments: ["python3", serversDirectory.appendingPathComponent(script).path] + arguments,
            environment: environment,
            timeoutSeconds: 120
        )
    }

    /// `pagebench serve --host 127.0.0.1 --port 0 ARGUMENTS…`.
    static func serve(_ arguments: [String]) throws -> ChildServer {
        try ChildServer(
            executable: try pagebench(),
            arguments: ["serve", "--host", "127.0.0.1", "--port", "0"] + arguments,
            environment: [:],
            timeoutSeconds: 60
        )
    }

    init(executable: String, arguments: [String], environment: [String: String], timeoutSeconds: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-child-\(UUID()).err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let errorHandle = try FileHandle(forWritingTo: errors)
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errorHandle
        process.standardInput = input
        try process.run()
        self.process = process
        self.input = input
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(timeoutSeconds), execute: watchdog)
        defer { watchdog.cancel() }
        var buffer: [UInt8] = []
        var lines: [String] = []
        var banner: String?
        while banner == nil {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(contentsOf: chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                if line.hasPrefix("listening on ") {
                    banner = line
                    break
                }
                lines.append(line)
            }
        }
        guard let banner else {
            process.terminate()
            process.waitUntilExit()
            let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw TestFailure(
                "\(arguments.joined(separator: " ")) exited before listening (a missing dependency? run .ci/install-deps): \(stderr.suffix(2000))"
            )
        }
        url = String(banner.dropFirst("listening on ".count).prefix { $0 != " " })
        linesBeforeBanner = lines
    }

    /// Closes its standard input and terminates it; waits (bounded) for it to exit.
    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    deinit { stop() }
}

/// Writes `text` to `name` in `directory`; returns the path.
@discardableResult
func write(_ text: String, _ name: String, in directory: URL) throws -> String {
    let path = directory.appendingPathComponent(name).path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}
