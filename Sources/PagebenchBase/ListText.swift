/// The elements of a list written as text (`1,8,64`, `0,3`, `zipf:1000:1.1`), for every flag
/// and file field that takes one: one splitter, so that every list refuses an empty element
/// the same way instead of some dropping it unseen (`--concurrency 1,,4` is a typo, not
/// `1,4`).
public enum ListText {
    /// An empty element: its 1-based position and the list it was in.
    public struct EmptyElement: Error, Sendable, Equatable {
        /// 1-based position of the first empty element.
        public let position: Int
        /// The whole list as given.
        public let text: String

        /// The problem in words, for a message that names the field: `element 2 of '1,,4' is
        /// empty; separate the elements with single commas, as in '1,8,64'`.
        public func problem(example: String, separator: Character = ",") -> String {
            let name = separator == "," ? "commas" : "'\(separator)'"
            return text.allSatisfy(\.isWhitespace)
                ? "is empty; give at least one element, as in '\(example)'"
                : "element \(position) of '\(text)' is empty; separate the elements with single \(name), as in '\(example)'"
        }
    }

    /// The elements of `text` split at `separator`, each with surrounding whitespace removed.
    ///
    /// - Throws: ``EmptyElement`` for an empty element: two separators in a row, a leading or
    ///   trailing separator, or a text with nothing in it.
    public static func elements(of text: String, separator: Character = ",") throws(EmptyElement) -> [String] {
        let parts = text.split(separator: separator, omittingEmptySubsequences: false).map(trimmed)
        if let empty = parts.firstIndex(where: \.isEmpty) {
            throw EmptyElement(position: empty + 1, text: text)
        }
        return parts
    }

    private static func trimmed(_ text: Substring) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
