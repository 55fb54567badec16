/// The syntax tree of a condition in DynamoDB's expression grammar (W2): comparisons,
/// `BETWEEN`, `AND`/`OR`/`NOT` and parentheses, with DynamoDB's precedence (NOT binds
/// tighter than AND, AND tighter than OR).
///
/// One parser serves two dialects: DynamoDB's (`KeyConditionExpression`,
/// `FilterExpression`: names, `#name` and `:value` placeholders, no literals) and
/// pagebench's filter text (`--filter 'category=0 and size>=1000'`: names and whole-number
/// literals). It builds a tree and never evaluates anything; ``FilterExpression`` and the
/// DynamoDB front end give the tree its meaning, and reject what they do not support by
/// name.
public indirect enum ConditionExpression: Sendable, Hashable {
    /// `left op right`.
    case comparison(Operand, ComparisonOperator, Operand)
    /// `subject BETWEEN low AND high` (inclusive at both ends).
    case between(Operand, Operand, Operand)
    case and(ConditionExpression, ConditionExpression)
    case or(ConditionExpression, ConditionExpression)
    case not(ConditionExpression)

    /// One side of a comparison.
    public enum Operand: Sendable, Hashable {
        /// An attribute name as written (`category`), or a `#name` placeholder (kept with its `#`).
        case name(String)
        /// A `:value` placeholder (kept with its `:`).
        case value(String)
        /// A whole-number literal (pagebench's dialect only).
        case number(Int)
    }

    /// Which grammar to accept.
    public enum Dialect: Sendable {
        /// DynamoDB expressions: no literals, `<>` for "not equal".
        case dynamoDB
        /// pagebench's filter text: literals, `!=` as well as `<>`, and no placeholders.
        case filterText
    }

    /// Parses `text` in `dialect`.
    ///
    /// - Throws: ``ExpressionError`` naming the first thing that is wrong or unsupported and
    ///   where it is.
    public init(parsing text: String, dialect: Dialect) throws(ExpressionError) {
        var parser = ConditionParser(tokens: try ConditionLexer.tokens(of: text, dialect: dialect), text: text)
        self = try parser.parseCondition()
        if let extra = parser.peek {
            throw ExpressionError("unexpected \(extra.kind.text) at offset \(extra.offset) after a complete condition")
        }
    }
}

/// The comparison operators of DynamoDB's grammar.
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "="
    case notEqual = "<>"
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="

    /// The operator with its operands swapped (`a < b` ⇔ `b > a`).
    public var mirrored: ComparisonOperator {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        }
    }

    /// Whether `left op right` holds.
    @inlinable @inline(__always)
    public func holds(_ left: Int, _ right: Int) -> Bool {
        switch self {
        case .equal: left == right
        case .notEqual: left != right
        case .less: left < right
        case .lessOrEqual: left <= right
        case .greater: left > right
        case .greaterOrEqual: left >= right
        }
    }
}

/// A condition that could not be parsed or is outside the supported subset (W2); the
/// message names the part and, where there is one, its offset in the text.
public struct ExpressionError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// One token of a condition.
struct ConditionToken: Sendable {
    enum Kind: Sendable, Equatable {
        case name(String)
        case placeholderName(String)
        case placeholderValue(String)
        case number(Int)
        case comparison(ComparisonOperator)
        case keyword(String)  // AND, OR, NOT, BETWEEN, upper-cased
        case open
        case close
        case comma

        var text: String {
            switch self {
            case .name(let name): "name '\(name)'"
            case .placeholderName(let name): "'\(name)'"
            case .placeholderValue(let value): "'\(value)'"
            case .number(let number): "number \(number)"
            case .comparison(let op): "'\(op.rawValue)'"
            case .keyword(let keyword): keyword
            case .open: "'('"
            case .close: "')'"
            case .comma: "','"
            }
        }
    }

    let kind: Kind
    let offset: Int
}

/// Splits a condition into tokens.
enum ConditionLexer {
    static let keywords: Set<String> = ["AND", "OR", "NOT", "BETWEEN", "IN"]

    static func tokens(
        of text: String,
        dialect: ConditionExpression.Dialect
    ) throws(ExpressionError) -> [ConditionToken] {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count <= 4096 else {
            throw ExpressionError("the expression is \(scalars.count) characters long; at most 4096 are accepted")
        }
        var tokens: [ConditionToken] = []
        var index = 0
        func isWord(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
        }
        while index < scalars.count {
            let scalar = scalars[index]
            let start = index
            if scalar.properties.isWhitespace {
                index += 1
                continue
            }
            switch scalar {
            case "(":
                tokens.append(ConditionToken(kind: .open, offset: start))
                index += 1
            case ")":
                tokens.append(ConditionToken(kind: .close, offset: start))
                index += 1
            case ",":
                tokens.append(ConditionToken(kind: .comma, offset: start))
                index += 1
            case "=":
                tokens.append(ConditionToken(kind: .comparison(.equal), offset: start))
                index += 1
            case "<", ">", "!":
                let next = index + 1 < scalars.count ? scalars[index + 1] : nil
                index += next == "=" || (scalar == "<" && next == ">") ? 2 : 1
                let op: ComparisonOperator
                switch (scalar, next) {
                case ("<", "="): op = .lessOrEqual
                case ("<", ">"): op = .notEqual
                case ("<", _): op = .less
                case (">", "="): op = .greaterOrEqual
                case (">", _): op = .greater
                case ("!", "=") where dialect == .filterText: op = .notEqual
                case ("!", "="): throw ExpressionError("'!=' at offset \(start) is not a DynamoDB comparator; use '<>'")
                default: throw ExpressionError("unexpected '!' at offset \(start)")
                }
                tokens.append(ConditionToken(kind: .comparison(op), offset: start))
            case "#", ":":
                index += 1
                while index < scalars.count, isWord(scalars[index]) { index += 1 }
                let word = String(String.UnicodeScalarView(scalars[start..<index]))
                guard word.count > 1 else {
                    throw ExpressionError("'\(scalar)' at offset \(start) must be followed by a name")
                }
                if dialect == .filterText {
                    throw ExpressionError(
                        "placeholder '\(word)' at offset \(start): filter text takes names and numbers, not placeholders"
                    )
                }
                tokens.append(
                    ConditionToken(
                        kind: scalar == "#" ? .placeholderName(word) : .placeholderValue(word),
                        offset: start
                    )
                )
            case "0"..."9", "-":
                index += 1
                while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
                let word = String(String.UnicodeScalarView(scalars[start..<index]))
                if dialect == .dynamoDB {
                    throw ExpressionError(
                        "literal '\(word)' at offset \(start): DynamoDB expressions take values only as ':placeholders' from ExpressionAttributeValues"
                    )
                }
                if index < scalars.count, isWord(scalars[index]) || scalars[index] == "." {
                    throw ExpressionError("'\(word)\(scalars[index])' at offset \(start) is not a whole number")
                }
                guard let number = Int(word) else {
                    throw ExpressionError("'\(word)' at offset \(start) is not a whole number within 64 bits")
                }
                tokens.append(ConditionToken(kind: .number(number), offset: start))
            default:
                guard isWord(scalar), !("0"..."9").contains(scalar) else {
                    throw ExpressionError("unexpected character '\(scalar)' at offset \(start)")
                }
                while index < scalars.count, isWord(scalars[index]) { index += 1 }
                let word = String(String.UnicodeScalarView(scalars[start..<index]))
                if keywords.contains(word.uppercased()) {
                    tokens.append(ConditionToken(kind: .keyword(word.uppercased()), offset: start))
                } else {
                    tokens.append(ConditionToken(kind: .name(word), offset: start))
                }
            }
            if index < scalars.count, scalars[index] == "." || scalars[index] == "[" {
                throw ExpressionError(
                    "document path at offset \(index) ('\(scalars[index])'): nested attributes are not supported"
                )
            }
        }
        return tokens
    }
}

/// A recursive-descent parser over ``ConditionToken``s.
struct ConditionParser {
    let tokens: [ConditionToken]
    let text: String
    var index = 0
    /// Nesting depth, bounded so that hostile input cannot exhaust the stack.
    var depth = 0
    static let maximumDepth = 64

    init(tokens: [ConditionToken], text: String) {
        self.tokens = tokens
        self.text = text
    }

    var peek: ConditionToken? { index < tokens.count ? tokens[index] : nil }

    mutating func next() -> ConditionToken? {
        defer { index += 1 }
        return peek
    }

    mutating func accept(keyword: String) -> Bool {
        if case .keyword(keyword)? = peek?.kind {
            index += 1
            return true
        }
        return false
    }

    mutating func parseCondition() throws(ExpressionError) -> ConditionExpression {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw ExpressionError("the expression nests deeper than \(Self.maximumDepth) levels")
        }
        var left = try parseAnd()
        while accept(keyword: "OR") { left = .or(left, try parseAnd()) }
        return left
    }

    mutating func parseAnd() throws(ExpressionError) -> ConditionExpression {
        var left = try parseNot()
        while accept(keyword: "AND") { left = .and(left, try parseNot()) }
        return left
    }

    mutating func parseNot() throws(ExpressionError) -> ConditionExpression {
        if accept(keyword: "NOT") {
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maximumDepth else {
                throw ExpressionError("the expression nests deeper than \(Self.maximumDepth) levels")
            }
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    mutating func parsePrimary() throws(ExpressionError) -> ConditionExpression {
        guard let token = next() else { throw ExpressionError("the expression ends where a condition was expected") }
        if token.kind == .open {
            let inner = try parseCondition()
            guard let close = next(), close.kind == .close else {
                throw ExpressionError("the '(' at offset \(token.offset) is not closed")
            }
            return inner
        }
        if case .name(let function) = token.kind, peek?.kind == .open {
            throw ExpressionError(
                "function '\(function)' at offset \(token.offset) is not supported; use comparisons, BETWEEN, AND, OR and NOT"
            )
        }
        let subject = try operand(token)
        guard let op = next() else {
            throw ExpressionError(
                "the expression ends after the operand at offset \(token.offset); a comparison or BETWEEN was expected"
            )
        }
        switch op.kind {
        case .comparison(let comparison):
            guard let right = next() else {
                throw ExpressionError("the expression ends after '\(comparison.rawValue)'")
            }
            return .comparison(subject, comparison, try operand(right))
        case .keyword("BETWEEN"):
            guard let lowToken = next() else { throw ExpressionError("the expression ends after BETWEEN") }
            let low = try operand(lowToken)
            guard accept(keyword: "AND") else {
                throw ExpressionError("BETWEEN at offset \(op.offset) needs 'low AND high'")
            }
            guard let highToken = next() else { throw ExpressionError("the expression ends after BETWEEN … AND") }
            return .between(subject, low, try operand(highToken))
        case .keyword("IN"):
            throw ExpressionError("IN at offset \(op.offset) is not supported; use comparisons joined by OR")
        default:
            throw ExpressionError(
                "unexpected \(op.kind.text) at offset \(op.offset); a comparison or BETWEEN was expected"
            )
        }
    }

    func operand(_ token: ConditionToken) throws(ExpressionError) -> ConditionExpression.Operand {
        switch token.kind {
        case .name(let name): return .name(name)
        case .placeholderName(let name): return .name(name)
        case .placeholderValue(let value): return .value(value)
        case .number(let number): return .number(number)
        default:
            throw ExpressionError("unexpected \(token.kind.text) at offset \(token.offset); an operand was expected")
        }
    }
}
