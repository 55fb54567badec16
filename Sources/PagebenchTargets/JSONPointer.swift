import PagebenchBase
import PagebenchWire

/// A JSON Pointer (RFC 6901): `/data/listItems/items`, `""` for the whole document; `~1`
/// stands for `/` and `~0` for `~` within a reference token. Resolved over the raw bytes of
/// a response without building a document: the client follows the pointer once per page.
package struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// The reference tokens, unescaped.
    package let tokens: [String]
    /// The pointer as written.
    package let description: String

    /// Parses `text`.
    ///
    /// - Throws: ``JSONPointer/SyntaxError`` when `text` is neither empty nor starts with
    ///   `/`, holds a `~` not followed by `0` or `1`, or has more reference tokens than JSON
    ///   is read deep (``JSONReader/maximumDepth``: such a pointer could never match, and
    ///   setting a body member follows it recursively).
    package init(_ text: String) throws(SyntaxError) {
        description = text
        guard !text.isEmpty else {
            tokens = []
            return
        }
        guard text.hasPrefix("/") else {
            throw SyntaxError(reason: "'\(text)' is not a JSON Pointer: it must be empty or start with '/' (RFC 6901)")
        }
        var tokens: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var iterator = raw.makeIterator()
            while let character = iterator.next() {
                guard character == "~" else {
                    token.append(character)
                    continue
                }
                switch iterator.next() {
                case "0": token.append("~")
                case "1": token.append("/")
                default:
                    throw SyntaxError(
                        reason: "'\(text)': '~' must be followed by 0 or 1 (~0 is '~', ~1 is '/', RFC 6901)"
                    )
                }
            }
            tokens.append(token)
            guard tokens.count <= JSONReader.maximumDepth else {
                throw SyntaxError(
                    reason:
                        "'\(text.prefix(40))…' has more than \(JSONReader.maximumDepth) reference tokens, deeper than any JSON read"
                )
            }
        }
        self.tokens = tokens
    }

    /// Why a pointer could not be parsed.
    package struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        package let reason: String
        package var description: String { reason }
    }

    /// The byte range of the value the pointer names in the JSON document `bytes`, or nil
    /// when a member or index on the way is missing (or the way crosses a scalar).
    ///
    /// - Throws: `JSONReadError` when the document is not valid JSON along the way.
    package func locate(in bytes: UnsafeRawBufferPointer) throws(JSONReadError) -> Range<Int>? {
        var reader = JSONReader(bytes)
        for token in tokens {
            guard try Self.step(&reader, token) else { return nil }
        }
        _ = reader.peek()
        let start = reader.offset
        try reader.skipValue()
        return start..<reader.offset
    }

    /// Moves `reader` from a container to the value of `token`; false when it is not there.
    private static func step(_ reader: inout JSONReader, _ token: String) throws(JSONReadError) -> Bool {
        switch reader.peek() {
        case UInt8(ascii: "{"):
            try reader.expect(UInt8(ascii: "{"))
            if reader.consume(UInt8(ascii: "}")) { return false }
            repeat {
                let key = try reader.readString()
                try reader.expect(UInt8(ascii: ":"))
                if key == token {
                    _ = reader.peek()
                    return true
                }
                try reader.skipValue()
            } while reader.consume(UInt8(ascii: ","))
            try reader.expect(UInt8(ascii: "}"))
            return false
        case UInt8(ascii: "["):
            // An index: digits without a leading zero ("-" names the element after the last).
            guard let index = Int(token), index >= 0, token == String(index) else { return false }
            try reader.expect(UInt8(ascii: "["))
            if reader.consume(UInt8(ascii: "]")) { return false }
            var position = 0
            repeat {
                if position == index {
                    _ = reader.peek()
                    return true
                }
                try reader.skipValue()
                position += 1
            } while reader.consume(UInt8(ascii: ","))
            try reader.expect(UInt8(ascii: "]"))
            return false
        case nil:
            throw reader.error("expected a value")
        default:
            return false
        }
    }
}
