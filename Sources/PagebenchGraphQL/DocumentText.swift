import GraphQL

/// A document's text, and the same text without line breaks, for GraphQLSwift.
///
/// GraphQLSwift 4.3.0 locates every error it creates by matching all line breaks of the
/// whole document with a regular expression (one match object per line break), and puts the
/// error's whole source line into a syntax error's message: one error on a 1 MiB document of
/// short lines cost a second of CPU, and validation creates an error per bad node. So
/// GraphQLSwift locates nothing on the text as sent: documents are validated and executed
/// parsed without locations, and where positions are needed (errors, the compiled query's
/// field) they come from a parse of ``flat``, the text with every line break outside a string
/// and every comment turned into spaces: same length, same tokens at the same offsets, one
/// line. Lines and columns are then computed here, once, on the text as sent. The document
/// that is executed is parsed from ``uncommented``: GraphQLSwift's lexer makes an object of
/// every comment (a megabyte of short comment lines made 350,000 of them).
struct DocumentText {
    /// The text as sent.
    let text: String
    /// ``text`` with line breaks outside strings (and inside block strings) and comments
    /// replaced by spaces: the same tokens at the same offsets, for GraphQLSwift to locate.
    /// Block strings' values differ; this text is parsed for positions, never executed.
    let flat: String
    /// ``text`` with its comments replaced by spaces: the same document, to validate and run.
    let uncommented: String

    /// `text` flattened along `tokens` (the lexer's, comments included), read up to `end`:
    /// the whole text, or the offset of a lexical error, whose byte is kept so that
    /// GraphQLSwift fails there as it would on `text`.
    init(_ text: String, bytes: [UInt8], tokens: [DocumentLexer.Token], errorOffset: Int?) {
        self.text = text
        var flat = bytes
        var uncommented = bytes
        func blank(_ range: Range<Int>, everything: Bool = false) {
            for index in range where everything || flat[index] == 0x0A || flat[index] == 0x0D {
                if index != errorOffset { flat[index] = 0x20 }
            }
        }
        var cursor = 0
        for token in tokens {
            blank(cursor..<token.start)
            switch token.kind {
            case .comment:
                blank(token.start..<token.end, everything: true)
                for index in token.start..<token.end { uncommented[index] = 0x20 }
            case .blockstring:
                blank(token.start..<min(token.end, flat.count))
            default:
                break
            }
            cursor = min(token.end, flat.count)
        }
        blank(cursor..<flat.count)
        self.flat = String(decoding: flat, as: UTF8.self)
        self.uncommented = tokens.contains { $0.kind == .comment } ? String(decoding: uncommented, as: UTF8.self) : text
    }

    /// GraphQLSwift's line and column of each UTF-8 offset in ``text`` (1-based; `\r\n`,
    /// `\n` and `\r` end a line).
    func locations(of offsets: [Int]) -> [SourceLocation] {
        Self.locations(in: text, of: offsets)
    }

    static func locations(in text: String, of offsets: [Int]) -> [SourceLocation] {
        guard !offsets.isEmpty else { return [] }
        var lineStarts = [0]
        var previous: UInt8 = 0
        for (index, byte) in text.utf8.enumerated() {
            if previous == 0x0D, byte != 0x0A { lineStarts.append(index) }
            if byte == 0x0A { lineStarts.append(index + 1) }
            previous = byte
        }
        if previous == 0x0D { lineStarts.append(text.utf8.count) }
        return offsets.map { offset in
            // The last line start at or before the offset.
            var low = 0
            var high = lineStarts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
            }
            return SourceLocation(line: low + 1, column: offset - lineStarts[low] + 1)
        }
    }

    /// `error` located on ``text`` from its positions (GraphQLSwift located it on ``flat``,
    /// or not at all); a syntax error's message names the line and column again, without
    /// GraphQLSwift's copy of the whole line.
    func relocated(_ error: GraphQLError, code: String? = nil) -> GraphQLError {
        Self.relocated(error, in: text, code: code)
    }

    static func relocated(_ error: GraphQLError, in text: String, code: String? = nil) -> GraphQLError {
        var extensions = error.extensions
        if let code { extensions["code"] = .string(code) }
        guard !error.positions.isEmpty else {
            return GraphQLError(
                message: error.message,
                locations: error.locations,
                path: error.path,
                extensions: extensions
            )
        }
        let locations = Self.locations(in: text, of: error.positions)
        var message = error.message
        if message.hasPrefix("Syntax Error "), let close = message.firstIndex(of: ")"), let first = locations.first {
            let rest = message[message.index(after: close)...]
            let description = rest.range(of: "\n\n").map { rest[..<$0.lowerBound] } ?? rest
            message = "Syntax Error GraphQL request (\(first.line):\(first.column))" + description
        }
        return GraphQLError(message: message, locations: locations, path: error.path, extensions: extensions)
    }
}
