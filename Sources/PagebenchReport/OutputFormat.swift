/// The output formats of `check` (text, markdown, json) and `compare` (text, markdown, csv).
public enum OutputFormat: String, Sendable, CaseIterable {
    case text, markdown, json, csv
}
