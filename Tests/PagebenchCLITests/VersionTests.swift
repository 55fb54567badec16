import ArgumentParser
import PagebenchCLI
import Testing

@Suite struct VersionTests {
    @Test func versionIsSemantic() {
        let parts = PagebenchVersion.string.split(separator: ".")
        #expect(parts.count == 3)
        #expect(parts.allSatisfy { Int($0) != nil })
    }

    @Test func unknownSubcommandIsAUsageError() {
        #expect(throws: (any Error).self) {
            _ = try PagebenchCommand.parseAsRoot(["no-such-subcommand"])
        }
        let code = PagebenchCommand.exitCode(for: ValidationError("x"))
        #expect(code.rawValue == ExitCodes.usage.rawValue)
    }
}
