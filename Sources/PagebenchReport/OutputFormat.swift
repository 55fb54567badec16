/// The output formats of `check` (text, markdown, json, junit) and `compare` (text, markdown, csv).
package enum OutputFormat: String, Sendable, CaseIterable {
    case text, markdown, json, csv
    /// JUnit XML (`check --format junit`, docs/ci.md): one test case per compared metric.
    case junit
}
