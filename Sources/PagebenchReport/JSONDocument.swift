import PagebenchMetrics

/// A minimal JSON (RFC 8259) parser that remembers where every value starts, so that a
/// thresholds file's semantic errors ("unknown metric", "relative must be ≥ 0") can name the
/// line and column, not only its syntax errors.
struct JSONDocument {
    /// One parsed value and its 1-based position.
    struct Node: Sendable {
        enum Value: Sendable {
            case object([Member])
            case array([Node])
            case string(String)
            case number(Double)
            case bool(Bool)
            case null
        }

        var value: Value
        var line: Int
        var column: Int

        /// A short name of the value's type for error messages.
        var typeName: String {
            switch value {
            case .object: "an object"
            case .array: "an array"
            case .string: "a string"
            case .number: "a number"
            case .bool: "a boolean"
            case .null: "null"
            }
        }
    }

    struct Member: Sendable {
        var key: String
        var keyLine: Int
        var keyColumn: Int
        var value: Node
    }

    /// Parses `text`; errors are ``MetricsError`` (`.malformedInput`) naming `file`, line and column.
    static func parse(_ text: String, file: String) throws -> Node {
        var parser = Parser(scalars: Array(text.unicodeScalars), file: file)
        if parser.scalars.first == "\u{FEFF}" { parser.index = 1 }
        parser.skipWhitespace()
        let node = try parser.value(depth: 0)
        parser.skipWhitespace()
        if parser.index < parser.scalars.count {
            throw parser.error("unexpected '\(parser.scalars[parser.index])' after the end of the JSON value")
        }
        return node
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        let file: String
        var index = 0
        var line = 1
        var column = 1

        init(scalars: [Unicode.Scalar], file: String) {
            self.scalars = scalars
            self.file = file
        }

        func error(_ message: String) -> MetricsError {
            .malformed(file: file, line: line, column: column, message)
        }

        var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        mutating func advance() {
            if scalars[index] == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
            index += 1
        }

        mutating func skipWhitespace() {
            while let scalar = current, scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" { advance() }
        }

        mutating func value(depth: Int) throws -> Node {
            guard depth < 64 else { throw error("nested more than 64 levels deep") }
            guard let scalar = current else { throw error("unexpected end of file; expected a value") }
            let (startLine, startColumn) = (line, column)
            func node(_ value: Node.Value) -> Node { Node(value: value, line: startLine, column: startColumn) }
            switch scalar {
            case "{":
                advance()
                var members: [Member] = []
                skipWhitespace()
                if current == "}" {
                    advance()
                    return node(.object(members))
                }
                while true {
                    skipWhitespace()
                    guard current == "\"" else { throw error("expected a quoted key") }
                    let (keyLine, keyColumn) = (line, column)
                    let key = try string()
                    if members.contains(where: { $0.key == key }) {
                        throw MetricsError.malformed(file: file, line: keyLine, column: keyColumn, "key \"\(key)\" appears twice in this object")
                    }
                    skipWhitespace()
                    guard current == ":" else { throw error("expected ':' after the key \"\(key)\"") }
                    advance()
                    skipWhitespace()
                    let member = try value(depth: depth + 1)
                    members.append(Member(key: key, keyLine: keyLine, keyColumn: keyColumn, value: member))
                    skipWhitespace()
                    if current == "," {
                        advance()
                        continue
                    }
                    if current == "}" {
                        advance()
                        return node(.object(members))
                    }
                    throw error("expected ',' or '}' in an object")
                }
            case "[":
                advance()
                var elements: [Node] = []
                skipWhitespace()
                if current == "]" {
                    advance()
                    return node(.array(elements))
                }
                while true {
                    skipWhitespace()
                    elements.append(try value(depth: depth + 1))
                    skipWhitespace()
                    if current == "," {
                        advance()
                        continue
                    }
                    if current == "]" {
                        advance()
                        return node(.array(elements))
                    }
                    throw error("expected ',' or ']' in an array")
                }
            case "\"":
                return node(.string(try string()))
            case "t":
                try literal("true")
                return node(.bool(true))
            case "f":
                try literal("false")
                return node(.bool(false))
            case "n":
                try literal("null")
                return node(.null)
            case "-", "0"..."9":
                return node(.number(try number()))
            default:
                throw error("unexpected '\(scalar)'; expected a value (object, array, string, number, true, false or null)")
            }
        }

        mutating func literal(_ word: String) throws {
            for expected in word.unicodeScalars {
                guard current == expected else { throw error("invalid literal; expected '\(word)'") }
                advance()
            }
        }

        mutating func number() throws -> Double {
            var text = ""
            while let scalar = current, "+-.eE0123456789".unicodeScalars.contains(scalar) {
                text.unicodeScalars.append(scalar)
                advance()
            }
            guard let value = Double(text), value.isFinite, text.first != "+", !text.hasPrefix("."),
                !(text.hasPrefix("0") && text.count > 1 && text.dropFirst().first?.isNumber == true),
                !(text.hasPrefix("-0") && text.count > 2 && text.dropFirst(2).first?.isNumber == true)
            else { throw error("invalid number '\(text)'") }
            return value
        }

        mutating func string() throws -> String {
            advance()  // opening quote
            var result = String.UnicodeScalarView()
            while true {
                guard let scalar = current else { throw error("unterminated string; add the closing quote") }
                if scalar == "\"" {
                    advance()
                    return String(result)
                }
                if scalar.value < 0x20 { throw error("control character in a string; escape it") }
                if scalar == "\\" {
                    advance()
                    guard let escaped = current else { throw error("unterminated escape sequence") }
                    switch escaped {
                    case "\"", "\\", "/": result.append(escaped)
                    case "b": result.append("\u{08}")
                    case "f": result.append("\u{0C}")
                    case "n": result.append("\n")
                    case "r": result.append("\r")
                    case "t": result.append("\t")
                    case "u":
                        var code: UInt32 = 0
                        for _ in 0..<4 {
                            advance()
                            guard let digit = current, let value = Int(String(digit), radix: 16) else {
                                throw error("\\u must be followed by four hexadecimal digits")
                            }
                            code = code * 16 + UInt32(value)
                        }
                        guard let decoded = Unicode.Scalar(code) else {
                            throw error("\\u\(String(code, radix: 16)) is not a Unicode scalar (surrogate pairs are not supported)")
                        }
                        result.append(decoded)
                    default:
                        throw error("invalid escape '\\\(escaped)'")
                    }
                    advance()
                    continue
                }
                result.append(scalar)
                advance()
            }
        }
    }
}
