import GraphQL
import PagebenchBase
import Testing

@testable import PagebenchGraphQL

/// W7: the GraphQL front end bounds nesting on the parser's own tokens. ``DocumentLexer`` is
/// GraphQLSwift's lexer ported; these tests hold it to the parser's token list (every parsed
/// document links its tokens, comments included, from `<SOF>` to `<EOF>`) on a corpus of
/// string forms — the ones that fooled the old bracket counter — and on seeded random
/// documents.
@Suite("GraphQL document lexer (W7)")
struct DocumentLexerTests {
    /// Our tokens of `text`, and how the read ended.
    static func lex(_ text: String) -> (tokens: [DocumentLexer.Token], end: DocumentLexer.Step) {
        var lexer = DocumentLexer(text)
        var tokens: [DocumentLexer.Token] = []
        while true {
            let step = lexer.next()
            guard case .token(let token) = step else { return (tokens, step) }
            tokens.append(token)
        }
    }

    /// The parser's own tokens of a parsed document, comments included, without `<SOF>`/`<EOF>`.
    static func parserTokens(_ document: Document) -> [DocumentLexer.Token] {
        var tokens: [DocumentLexer.Token] = []
        var token = document.loc?.startToken.next
        while let current = token, current.kind != .eof {
            tokens.append(DocumentLexer.Token(kind: current.kind, start: current.start, end: current.end))
            token = current.next
        }
        return tokens
    }

    /// The deepest nesting of `{`, `[`, `(` among `tokens`.
    static func depth(_ tokens: [DocumentLexer.Token]) -> Int {
        var depth = 0
        var deepest = 0
        for token in tokens {
            switch token.kind {
            case .openingBrace, .openingBracket, .openingParenthesis:
                depth += 1
                deepest = max(deepest, depth)
            case .closingBrace, .closingBracket, .closingParenthesis:
                depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// Checks `text` against GraphQLSwift: a document that parses has exactly the parser's
    /// tokens; one that does not fails in our lexer at the parser's position, or parses
    /// into a grammar error after tokens we read without error. Returns whether it parsed.
    @discardableResult
    static func expectSameTokens(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
        let (ours, end) = lex(text)
        if case .trap = end {
            Issue.record("unexpected trap in \(text.debugDescription)", sourceLocation: sourceLocation)
            return false
        }
        // Keep the parser within its stack whatever the lexer says.
        guard depth(ours) < 200 else {
            Issue.record(
                "the corpus document nests \(depth(ours)) deep: \(text.prefix(80))",
                sourceLocation: sourceLocation
            )
            return false
        }
        do {
            let document = try parse(source: Source(body: text))
            #expect(ours == parserTokens(document), "\(text.debugDescription)", sourceLocation: sourceLocation)
            #expect(end == .end, "\(text.debugDescription)", sourceLocation: sourceLocation)
            return true
        } catch let error as GraphQLError {
            // A lexical error is where our lexer stopped; a grammar error is at one of the
            // tokens we read before (or at the end).
            let position = error.positions.first ?? -1
            let lexical = ["Unterminated", "Invalid", "Unexpected character", "Unable to initialize"].contains {
                error.message.contains($0)
            }
            if lexical {
                #expect(
                    end == .syntaxError(offset: position),
                    "\(text.debugDescription): \(error.message)",
                    sourceLocation: sourceLocation
                )
            } else {
                var before = end
                if case .syntaxError(let offset) = end, position < offset { before = .end }
                #expect(
                    before == .end,
                    "\(text.debugDescription): parser at \(position): \(error.message)",
                    sourceLocation: sourceLocation
                )
                #expect(
                    position == text.utf8.count || ours.contains { $0.start == position },
                    "\(text.debugDescription): \(error.message)",
                    sourceLocation: sourceLocation
                )
            }
            return false
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
            return false
        }
    }

    /// String forms that fooled the bracket counter (issue 24), and their relatives: block
    /// strings with `\"""`, adjacent strings, `\\` before quotes, empty strings, brackets
    /// and `#` inside strings, line terminators, BOMs, comments with quotes.
    static let stringForms: [String] = [
        "\"a\"\"b\"", "\"\"", "\"\"\" \"\"\"", "\"a\"\"\"", "\"\"\" \\\"\"\" \"\"\"", "\"\"\" \\\"\"\" { [ ( \"\"\"",
        "\"\"\"a\\\"\"\"b\"\"\"", "\"\\\\\"", "\"\\\\\\\"\"", "\"\\\\\" \"\\\\\\\\\"", "\"\\\"\"", "\"\\\" \\\"\"",
        "\"\"\"\\\\\"\"\"", "\"\"\"\\\\\\\"\"\"\"", "\"\"\"\"\"\"", "\"\"\"\" \"\"\"", "\"\"\" \"\" \"\"\"",
        "\"\"\" \" \"\"\"", "\"\"\"x\"\"\"\"", "\"\"\" ]]]}}} \"\"\"", "\"]]]}}})))\"", "\"{[(\"", "\"#{\"",
        "\"\\u0041\\u005D\"", "\"\\/\\b\\f\\n\\r\\t\"", "\"\"\"a\r\nb\rc\nd\"\"\"", "\"\"\"\\\"\"\"\"\"\"",
        "\"\"\"\"\"\"\"\"\"", "\"a\"\"\"\"b\"\"\"", "\u{FEFF}\"x\"", "\"é ü 中\"", "\"\"\"é \\\"\"\" 中\"\"\"",
    ]

    @Test("W7: every string form reads as the parser reads it, and cannot hide brackets")
    func w7StringFormsMatchTheParser() throws {
        var parsed = 0
        for form in Self.stringForms {
            for template in [
                "query { f(a: [ \(form) ]) { g } }",
                "query { f(a: [ \(form) [[[ 1 ]]] \(form) ]) }",
                "query { f(a: [ \(form) \(form) {x: [\(form)]} ]) }\n# \(form)\n",
                "{ f(a: [\(form)]) { g(b: [[[[\(form)]]]]) { h } } }",
            ] {
                if Self.expectSameTokens(template) { parsed += 1 }
                // Nesting after the form: the lexer sees every bracket the parser will.
                let deep =
                    "{ f(a: [ \(form) " + String(repeating: "[", count: 150) + String(repeating: "]", count: 150)
                    + " ]) }"
                Self.expectSameTokens(deep)
                #expect(Self.depth(Self.lex(deep).tokens) == 153 || !Self.expectSameTokens(deep))
            }
        }
        #expect(parsed >= Self.stringForms.count * 3, "most forms are well-formed values (\(parsed))")
    }

    @Test("W7: lexical errors end our read where they end the parser's")
    func w7LexicalErrorsMatchTheParser() {
        for text in [
            "{ a(b: \"x\ny\") }", "{ a(b: \"\\x\") }", "{ a(b: \"\\u00G0\") }", "{ a(b: \"\\uD800\") }",
            "{ a(b: \"unterminated",
            "{ a(b: \"\"\"unterminated", "{ a(b: 01) }", "{ a(b: 1.) }", "{ a(b: 1.e5) }", "{ a(b: 1e) }",
            "{ a(b: -x) }", "{ a(b: .5) }",
            "{ a(b: ..) }", "{ a\u{0001} }", "{ a(b: \"\u{0007}\") }", "{ a(b: \"\"\"\u{0007}\"\"\") }",
            "{ a(b: 1 2.5e-3 -0 0.0) }",
            "{ a(b: \"\\\"\") }", "{ a(b: -) }", "{ a(b: \"\"\"x\\\"\"\"", "\"\"\"\\\"\"\"", "\"\"\"\\\"\"\"x\"\"\"",
            "{ a(b: 1a) }", "{ a(b: \"\"\"x\\\"\"\"\") }", "{ % }", "{ a(b: \"\\u0041\" }",
        ] {
            Self.expectSameTokens(text)
        }
    }

    @Test("W7: a short \\u escape at the end of the document is found before GraphQLSwift's lexer traps on it")
    func w7TrapsAreFound() {
        for text in ["{ a(b: \"\\u", "{ a(b: \"\\u1", "{ a(b: \"\\u12", "{ a(b: \"\\u123", "\"x\\u00"] {
            guard case .trap = Self.lex(text).end else {
                Issue.record("\(text.debugDescription) is not flagged")
                continue
            }
        }
        // Four digits, or more text after the escape: GraphQLSwift reads it without trapping.
        for text in [
            "{ a(b: \"\\u1234", "{ a(b: \"\\u123\" }", "{ a(b: \"\\\\", "{ a(b: \"\\\"", "{ a(b: \"\\", "\"\\",
        ] {
            if case .trap = Self.lex(text).end { Issue.record("\(text.debugDescription) is flagged") }
            Self.expectSameTokens(text)
        }
    }

    /// Random documents: values of every lexical kind in a list literal, so that they parse
    /// whenever their strings are well formed.
    @Test("W7: seeded random documents read as the parser reads them")
    func w7RandomDocumentsMatchTheParser() {
        var random = SplitMix64(seed: 24)
        let pieces = [
            "\"", "\\", "\\\"", "\\\\", "\"\"\"", "\\\"\"\"", "\"\"", "{", "}", "[", "]", "(", ")", "#", "\n", "\r",
            "\r\n", "\t", ",",
            " ", "u", "\\u", "0041", "\\n", "x", "é", "\u{FEFF}", "$", "!", "...", "..", "1", "-", "e", ".", "_",
            "\u{0001}",
        ]
        var parsed = 0
        for _ in 0..<3_000 {
            var values: [String] = []
            for _ in 0..<Int(random.next() % 4 + 1) {
                switch random.next() % 4 {
                case 0:
                    // A string of random pieces.
                    let body = (0..<Int(random.next() % 6)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))]
                    }.joined()
                    values.append("\"" + body + "\"")
                case 1:
                    let body = (0..<Int(random.next() % 6)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))]
                    }.joined()
                    values.append("\"\"\"" + body + "\"\"\"")
                case 2:
                    values.append(Self.stringForms[Int(random.next() % UInt64(Self.stringForms.count))])
                default:
                    values.append(
                        (0..<Int(random.next() % 4 + 1)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
                            .joined()
                    )
                }
            }
            let text = "query { f(a: [" + values.joined(separator: " ") + "]) }"
            if case .trap = Self.lex(text).end { continue }  // GraphQLSwift would trap: not in-process
            if Self.expectSameTokens(text) { parsed += 1 }
            // The same document cut short: what happens at the end of the text.
            let cut = String(decoding: text.utf8.prefix(Int(random.next() % UInt64(text.utf8.count))), as: UTF8.self)
            if case .trap = Self.lex(cut).end { continue }
            Self.expectSameTokens(cut)
        }
        #expect(parsed > 300, "the generator should produce documents that parse (\(parsed))")
    }
}
