/// A target file (or a scenario's `target` section) that cannot be used: bad JSON, an
/// unknown key, a missing or mistyped value. ``message`` names the field (`http.items`) and
/// says what is accepted. The CLI exits 65 for it (66 when the file itself is missing).
package struct TargetFileError: Error, Sendable, Hashable, CustomStringConvertible {
    package let message: String
    /// Whether the file (or a file it names) does not exist or cannot be read.
    package let isMissingFile: Bool

    package init(_ message: String, missingFile: Bool = false) {
        self.message = message
        isMissingFile = missingFile
    }

    package var description: String { message }

    /// The same error prefixed with the field it belongs to.
    func `in`(_ field: String) -> TargetFileError {
        TargetFileError("\(field): \(message)", missingFile: isMissingFile)
    }
}
