import GraphQL

/// Bounds on how deeply a request nests, checked before anything recursive sees it:
/// GraphQLSwift's parser, validator and value coercion recurse, so a document of 20,000
/// nested selections (or a filter of 5,000 nested `not`s) would overflow the stack and
/// take the server down. Real queries, introspection included, nest a few levels.
enum NestingLimit {
    static let maximumDepth = 64

    /// The deepest nesting of `{`, `(` and `[` in a GraphQL document, outside strings and
    /// comments.
    static func depth(ofDocument text: String) -> Int {
        var depth = 0
        var deepest = 0
        var bytes = text.utf8.makeIterator()
        var inString = false
        var inComment = false
        var escaped = false
        var quotes = 0  // consecutive '"' outside a string: three open a block string
        var inBlockString = false
        var blockQuotes = 0
        while let byte = bytes.next() {
            if inComment {
                if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { inComment = false }
                continue
            }
            if inBlockString {
                blockQuotes = byte == UInt8(ascii: "\"") ? blockQuotes + 1 : 0
                if blockQuotes == 3 { inBlockString = false }
                continue
            }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    quotes = 1
                }
                continue
            }
            if byte == UInt8(ascii: "\"") {
                quotes += 1
                if quotes == 3 {
                    inBlockString = true
                    quotes = 0
                    blockQuotes = 0
                }
                continue
            }
            if quotes == 1 {
                // One quote then something else: a string began at that quote.
                quotes = 0
                inString = true
                if byte == UInt8(ascii: "\\") { escaped = true }
                continue
            }
            quotes = 0
            switch byte {
            case UInt8(ascii: "#"): inComment = true
            case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "["):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: "]"):
                depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// The deepest nesting of lists and objects in a variable value.
    static func depth(of value: Map, limit: Int = maximumDepth + 1) -> Int {
        guard limit > 0 else { return 0 }
        switch value {
        case .array(let elements): return 1 + (elements.map { depth(of: $0, limit: limit - 1) }.max() ?? 0)
        case .dictionary(let members): return 1 + (members.values.map { depth(of: $0, limit: limit - 1) }.max() ?? 0)
        default: return 0
        }
    }
}
