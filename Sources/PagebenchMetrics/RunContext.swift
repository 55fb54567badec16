import Foundation

/// What a results row needs to be compared honestly: when, which code, which toolchain, which machine.
public struct RunContext: Sendable, Equatable {
    /// UTC, ISO 8601 to the second (`2026-11-22T02:39:43Z`).
    public var timestampUTC: String
    public var pagebenchVersion: String
    /// `git rev-parse HEAD`, with `-dirty` appended when tracked files had changes, or `unknown`
    /// when not in a git work tree or git is not installed.
    public var gitCommit: String
    /// The compiler version pagebench was built with, from compile-time `#if compiler(>=…)` checks
    /// (the most honest figure available without running a toolchain at run time).
    public var swiftVersion: String
    /// `debug` or `release`.
    public var buildConfiguration: String
    public var host: String
    /// CPU cores the process may use.
    public var cores: Int
    /// How allocation requests are counted (`exact`, `cached` or empty): the CLI asks
    /// jemalloc, which this module does not link.
    public var allocationCounting: String = ""

    public init(
        timestampUTC: String,
        pagebenchVersion: String,
        gitCommit: String,
        swiftVersion: String,
        buildConfiguration: String,
        host: String,
        cores: Int
    ) {
        self.timestampUTC = timestampUTC
        self.pagebenchVersion = pagebenchVersion
        self.gitCommit = gitCommit
        self.swiftVersion = swiftVersion
        self.buildConfiguration = buildConfiguration
        self.host = host
        self.cores = cores
    }

    /// The context of this process now.
    ///
    /// - Parameters:
    ///   - pagebenchVersion: the CLI's version string.
    ///   - gitDirectory: where to ask git (default: the current directory).
    public static func current(pagebenchVersion: String, gitDirectory: String? = nil, now: Date = Date()) -> RunContext
    {
        RunContext(
            timestampUTC: timestamp(now),
            pagebenchVersion: pagebenchVersion,
            gitCommit: gitCommit(in: gitDirectory),
            swiftVersion: compilerVersion,
            buildConfiguration: buildConfiguration,
            host: hostName,
            cores: ProcessInfo.processInfo.activeProcessorCount
        )
    }

    /// `date` as `YYYY-MM-DDTHH:MM:SSZ`.
    public static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// The host name (`gethostname`), or `unknown`.
    public static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "unknown" : name
    }

    /// `debug` or `release`, as this module was compiled.
    public static var buildConfiguration: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }

    /// The compiler's major.minor version, from compile-time checks.
    public static var compilerVersion: String {
        #if compiler(>=7.0)
        ">=7.0"
        #elseif compiler(>=6.4)
        "6.4"
        #elseif compiler(>=6.3)
        "6.3"
        #elseif compiler(>=6.2)
        "6.2"
        #elseif compiler(>=6.1)
        "6.1"
        #else
        "<6.1"
        #endif
    }

    /// The git commit of `directory` (or the current directory), `-dirty` if tracked files
    /// changed, or `unknown` when git is unavailable or this is not a work tree.
    public static func gitCommit(in directory: String? = nil) -> String {
        guard let head = runGit(["rev-parse", "--verify", "HEAD"], in: directory), head.count >= 7,
            head.allSatisfy(\.isHexDigit)
        else { return "unknown" }
        let status = runGit(["status", "--porcelain", "--untracked-files=no"], in: directory)
        return status?.isEmpty == false ? head + "-dirty" : head
    }

    private static func runGit(_ arguments: [String], in directory: String?) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
