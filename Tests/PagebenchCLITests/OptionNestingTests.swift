import ArgumentParser
import PagebenchCLI
import Testing

/// How deep the parsed commands nest their option groups. In a debug build
/// swift-argument-parser checks a command's declarations on every parse and rebuilds each
/// nested group once per check, so every level of nesting multiplies the cost of a parse by
/// about four: with `run`'s flags as one group around three more, a debug `run` parse took
/// 0.34 CPU-s and these checks were 36 % of the CPU of the whole Swift suite. A command holds
/// its groups side by side; a group holds none.
@Suite struct OptionNestingTests {
    /// The deepest chain of `@OptionGroup`s inside `value`, a parsed command or group. A group
    /// it cannot open (a new ArgumentParser storing it differently) is recorded as an issue,
    /// so that this never passes by not looking.
    static func groupDepth(_ value: Any) -> Int {
        Mirror(reflecting: value).children.map { child in
            guard String(describing: type(of: child.value)).hasPrefix("OptionGroup<") else { return 0 }
            // OptionGroup's one stored property is its parsed state; the parsed group is that
            // state's payload.
            guard let state = Mirror(reflecting: child.value).children.first?.value,
                let group = Mirror(reflecting: state).children.first?.value
            else {
                Issue.record("cannot open the option group \(child.label ?? "?") of \(type(of: value))")
                return 1
            }
            return 1 + groupDepth(group)
        }.max() ?? 0
    }

    @Test(arguments: [
        ["run"], ["items"], ["pages"], ["serve"], ["http-bench", "--target", "http://127.0.0.1:1"],
        ["knee", "--from", "100", "--slo", "error_rate<1%"],
    ])
    func aCommandsOptionGroupsHoldNoGroups(_ arguments: [String]) throws {
        let command = try PagebenchCommand.parseAsRoot(arguments)
        let depth = Self.groupDepth(command)
        #expect(depth <= 1, "\(arguments[0]) nests option groups \(depth) deep")
    }

    @Test func runHoldsItsGroupsSideBySideAndRunOptionsParsesAsACommand() throws {
        let run = try #require(try PagebenchCommand.parseAsRoot(["run"]) as? RunCommand)
        #expect(Self.groupDepth(run) == 1)
        // `knee` and `baseline update` parse `run`'s flags as RunOptions: parsed as a command of
        // its own, not inside the wrapper ArgumentParser gives plain ParsableArguments.
        #expect((RunOptions.self as Any.Type) is ParsableCommand.Type)
        #expect(Self.groupDepth(try RunOptions.parse(["--limit", "7"])) == 1)
    }
}
