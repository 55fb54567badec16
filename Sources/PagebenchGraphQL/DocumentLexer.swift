import GraphQL

/// GraphQLSwift 4.3.0's lexer (`Sources/GraphQL/Language/Lexer.swift`: `readToken`,
/// `readString`, `readBlockString`, …), ported token for token, so that the request bounds
/// (W7) count exactly the tokens the parser will read — before the parser reads them.
///
/// GraphQLSwift's own lexer is internal, and its parser recurses once per `{`, `[` and `(`:
/// a document nested a few thousand levels deep overflows the stack. A bracket count that
/// guesses where strings end is fooled by string forms (`"a""b"`, `\"""` in a block string,
/// `"\\"`); this port reads strings, block strings, comments, numbers and names as
/// GraphQLSwift does, quirks included (a `\"""` escape only counts with a byte after it; a
/// string ending in `\"` at the end of the document is closed). `DocumentLexerTests`
/// compares its tokens with the parser's own (the token list of a parsed document) on a
/// corpus of string forms and seeded random documents: bump GraphQLSwift only with them green.
///
/// It also finds the input on which GraphQLSwift 4.3.0's lexer traps instead of throwing —
/// a `\u` escape with fewer than four bytes after it at the end of the document, which it
/// reads with `String.UTF8View`'s subscript past the end ("String index is out of bounds",
/// SIGILL) — so that it is refused before GraphQLSwift sees it.
struct DocumentLexer {
    /// One token: its kind (GraphQLSwift's) and UTF-8 byte offsets, as the parser's `Token`.
    struct Token: Equatable {
        let kind: GraphQL.Token.Kind
        let start: Int
        let end: Int
    }

    /// What reading the next token came to.
    enum Step: Equatable {
        case token(Token)
        /// The end of the document (GraphQLSwift's `<EOF>` token).
        case end
        /// A syntax error GraphQLSwift throws at `offset`: the parse stops there.
        case syntaxError(offset: Int)
        /// Input on which GraphQLSwift 4.3.0 traps (kills the process) at `offset`.
        case trap(offset: Int, description: String)
    }

    let bytes: [UInt8]
    private(set) var position = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// The byte at `offset`, nil past the end (GraphQLSwift's `charCode(at:)`).
    private func byte(_ offset: Int) -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    /// Reads the next token, comments included (the parser skips them).
    mutating func next() -> Step {
        skipWhitespace()
        guard position < bytes.count else { return .end }
        let start = position
        let code = bytes[start]
        if code < 0x20, code != 0x09, code != 0x0A, code != 0x0D { return .syntaxError(offset: start) }
        let kind: GraphQL.Token.Kind
        switch code {
        case UInt8(ascii: "!"): kind = .bang
        case UInt8(ascii: "$"): kind = .dollar
        case UInt8(ascii: "&"): kind = .amp
        case UInt8(ascii: "("): kind = .openingParenthesis
        case UInt8(ascii: ")"): kind = .closingParenthesis
        case UInt8(ascii: ":"): kind = .colon
        case UInt8(ascii: "="): kind = .equals
        case UInt8(ascii: "@"): kind = .at
        case UInt8(ascii: "["): kind = .openingBracket
        case UInt8(ascii: "]"): kind = .closingBracket
        case UInt8(ascii: "{"): kind = .openingBrace
        case UInt8(ascii: "|"): kind = .pipe
        case UInt8(ascii: "}"): kind = .closingBrace
        case UInt8(ascii: "."):
            guard byte(start + 1) == UInt8(ascii: "."), byte(start + 2) == UInt8(ascii: ".") else {
                return .syntaxError(offset: start)
            }
            position = start + 3
            return .token(Token(kind: .spread, start: start, end: position))
        case UInt8(ascii: "#"):
            position = start + 1
            while let next = byte(position), next > 0x1F || next == 0x09 { position += 1 }
            return .token(Token(kind: .comment, start: start, end: position))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "_"):
            position = start + 1
            while let next = byte(position), Self.isNameContinue(next) { position += 1 }
            return .token(Token(kind: .name, start: start, end: position))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return readNumber(start)
        case UInt8(ascii: "\""):
            if byte(start + 1) == UInt8(ascii: "\""), byte(start + 2) == UInt8(ascii: "\"") {
                return readBlockString(start)
            }
            return readString(start)
        default:
            return .syntaxError(offset: start)
        }
        position = start + 1
        return .token(Token(kind: kind, start: start, end: position))
    }

    static func isNameContinue(_ code: UInt8) -> Bool {
        code == UInt8(ascii: "_") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(code)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(code)
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(code)
    }

    static func isDigit(_ code: UInt8?) -> Bool {
        code.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false
    }

    /// `positionAfterWhitespace`: BOM, tab, space, comma and line terminators.
    private mutating func skipWhitespace() {
        while position < bytes.count {
            let code = bytes[position]
            if code == 0xEF, byte(position + 1) == 0xBB, byte(position + 2) == 0xBF {
                position += 3
            } else if code == 0x09 || code == 0x20 || code == 0x2C || code == 0x0A || code == 0x0D {
                position += 1
            } else {
                return
            }
        }
    }

    /// `readNumber`: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`. GraphQLSwift 4.3.0
    /// takes a lone `-` at the end of the document as an Int and a name right after a
    /// number as the next token; so does this.
    private mutating func readNumber(_ start: Int) -> Step {
        var offset = start
        var isFloat = false
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        if byte(offset) == UInt8(ascii: "0") {
            offset += 1
            if Self.isDigit(byte(offset)) { return .syntaxError(offset: offset) }
        } else if let code = byte(offset) {
            guard Self.isDigit(code) else { return .syntaxError(offset: offset) }
            while Self.isDigit(byte(offset)) { offset += 1 }
        }
        if byte(offset) == UInt8(ascii: ".") {
            isFloat = true
            offset += 1
            guard Self.isDigit(byte(offset)) else { return .syntaxError(offset: offset) }
            while Self.isDigit(byte(offset)) { offset += 1 }
        }
        if byte(offset) == UInt8(ascii: "e") || byte(offset) == UInt8(ascii: "E") {
            isFloat = true
            offset += 1
            if byte(offset) == UInt8(ascii: "+") || byte(offset) == UInt8(ascii: "-") { offset += 1 }
            guard Self.isDigit(byte(offset)) else { return .syntaxError(offset: offset) }
            while Self.isDigit(byte(offset)) { offset += 1 }
        }
        position = offset
        return .token(Token(kind: isFloat ? .float : .int, start: start, end: offset))
    }

    /// `readString`: up to the closing `"`, refusing line terminators and control
    /// characters; escapes `\" \/ \\ \b \f \n \r \t \uXXXX`.
    private mutating func readString(_ start: Int) -> Step {
        var offset = start + 1
        var current: UInt8? = 0
        while offset < bytes.count {
            current = bytes[offset]
            let code = bytes[offset]
            if code == 0x0A || code == 0x0D || code == UInt8(ascii: "\"") { break }
            if code < 0x20, code != 0x09 { return .syntaxError(offset: offset) }
            offset += 1
            guard code == UInt8(ascii: "\\") else { continue }
            // GraphQLSwift reads the escaped byte and steps past it.
            current = byte(offset)
            if let escaped = current {
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    break
                case UInt8(ascii: "u"):
                    guard offset + 4 < bytes.count else {
                        return .trap(
                            offset: offset,
                            description: "a \\u escape with fewer than four hex digits at the end of the document"
                        )
                    }
                    let digits = bytes[(offset + 1)...(offset + 4)].map(Self.hexValue)
                    guard digits.allSatisfy({ $0 >= 0 }) else { return .syntaxError(offset: offset) }
                    let scalar = digits.reduce(0) { $0 << 4 | $1 }
                    guard Unicode.Scalar(UInt32(scalar)) != nil else { return .syntaxError(offset: offset) }
                    offset += 4
                default:
                    return .syntaxError(offset: offset)
                }
            }
            // A `\` at the very end: GraphQLSwift steps past the end, then reports the string
            // unterminated one byte beyond it.
            guard offset < bytes.count else { return .syntaxError(offset: bytes.count + 1) }
            offset += 1
        }
        guard current == UInt8(ascii: "\"") else { return .syntaxError(offset: offset) }
        position = offset + 1
        return .token(Token(kind: .string, start: start, end: position))
    }

    /// `readBlockString`: up to the next `"""`; `\"""` is an escape only when at least one
    /// byte follows it.
    private mutating func readBlockString(_ start: Int) -> Step {
        var offset = start + 3
        while offset < bytes.count {
            let code = bytes[offset]
            if code == UInt8(ascii: "\""), bytes.count - offset > 2, bytes[offset + 1] == UInt8(ascii: "\""),
                bytes[offset + 2] == UInt8(ascii: "\"")
            {
                position = offset + 3
                return .token(Token(kind: .blockstring, start: start, end: position))
            }
            if code < 0x20, code != 0x09, code != 0x0A, code != 0x0D { return .syntaxError(offset: offset) }
            if code == 0x0D, byte(offset + 1) == 0x0A {
                offset += 2
            } else if code == UInt8(ascii: "\\"), bytes.count - offset > 4, bytes[offset + 1] == UInt8(ascii: "\""),
                bytes[offset + 2] == UInt8(ascii: "\""), bytes[offset + 3] == UInt8(ascii: "\"")
            {
                offset += 4
            } else {
                offset += 1
            }
        }
        return .syntaxError(offset: offset)
    }

    /// A hex digit's value, or -1 (GraphQLSwift's `char2hex`).
    static func hexValue(_ code: UInt8) -> Int {
        switch code {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(code) - 48
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(code) - 55
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(code) - 87
        default: -1
        }
    }
}
