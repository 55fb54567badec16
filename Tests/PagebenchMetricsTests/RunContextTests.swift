import Foundation
import Testing

@testable import PagebenchMetrics

/// The context every row carries (seed aside): when, which commit, which compiler, which machine.
@Suite struct RunContextTests {
    @Test("run context: timestamp format, git commit of this repository, compiler and host")
    func timestampCommitCompilerAndHost() throws {
        #expect(RunContext.timestamp(Date(timeIntervalSince1970: 1_763_778_583.9)) == "2025-11-22T02:29:43Z")
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let commit = RunContext.gitCommit(in: packageRoot)
        if commit != "unknown" {
            let hash = commit.hasSuffix("-dirty") ? String(commit.dropLast(6)) : commit
            #expect(hash.count == 40 && hash.allSatisfy(\.isHexDigit))
        }
        #expect(RunContext.gitCommit(in: "/") == "unknown")
        let context = RunContext.current(pagebenchVersion: "0.1.0", gitDirectory: packageRoot)
        #expect(context.swiftVersion == "6.3")
        #expect(context.cores >= 1)
        #expect(!context.host.isEmpty)
        #expect(context.buildConfiguration == "debug" || context.buildConfiguration == "release")
        var row = ResultRow()
        row.apply(context)
        #expect(row.gitCommit == context.gitCommit && row.cores == context.cores)
    }
}
