import PagebenchCLI
import PagebenchTargets
import Testing

/// Issue 39: the target kinds a help text lists come from `Target.Kind.allCases`, so a new
/// kind appears in every help without an edit there.
@Suite struct KindListTests {
    @Test func helpTextsListTheKindsFromTheirDeclaration() {
        #expect(Target.Kind.names == Target.Kind.allCases.map(\.rawValue).joined(separator: ", "))
        let bench = HTTPBenchCommand.helpMessage(columns: 10_000)
        #expect(bench.contains("(kinds \(Target.Kind.names); docs/file-formats.md)"), "\(bench)")
        let run = PagebenchCommand.helpMessage(for: RunCommand.self, columns: 10_000)
        #expect(run.contains("(kinds \(Target.Kind.names); docs/file-formats.md)"), "\(run)")
    }
}
