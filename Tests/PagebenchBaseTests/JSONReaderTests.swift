import PagebenchBase
import Testing

/// Issue 28: `JSONReader` is pagebench's one JSON tokenizer, for HTTP bodies (PagebenchWire)
/// and for the strict loader of every file (`StrictJSON`). Its error carries both wordings:
/// the HTTP side's short reason with the byte offset, unchanged, and a file's
/// `line L, column C: expected X, found Y`.
@Suite struct JSONReaderTests {
    /// Skips one value of `text` with the reader; the error, if any.
    static func skipError(_ text: String) -> JSONReadError? {
        Array(text.utf8).withUnsafeBytes { bytes in
            var reader = JSONReader(bytes)
            do throws(JSONReadError) {
                try reader.skipValue()
                try reader.expectEnd()
                return nil
            } catch {
                return error
            }
        }
    }

    @Test(
        "an error is the reader's reason at a byte offset, and located as a line and a column",
        arguments: [
            ("[1, 2\n, }", "expected a value at byte 8", "line 2, column 3: expected a value, found '}'"),
            ("{\"a\" 1}", "expected ':' at byte 5", "line 1, column 6: expected ':' after the key, found '1'"),
            ("[1", "expected ']' at byte 2", "line 1, column 3: expected ',' or ']', found the end of the text"),
            (
                "{\"a\": 1\r\n  \"b\": 2}", "expected '}' at byte 11",
                "line 2, column 3: expected ',' or '}', found '\"'"
            ),
            ("{,}", "expected an object key at byte 1", "line 1, column 2: expected a key in double quotes, found ','"),
            (
                "[] []", "unexpected bytes after the value at byte 3",
                "line 1, column 4: expected the end of the text after the value, found '['"
            ),
            (
                "[\"a\tb\"]", "control character in a string at byte 3",
                "line 1, column 4: expected a character of a string (control characters only as escapes, such as \\n or \\u0009), found the byte 0x9"
            ),
            (
                "[\"a\\qb\"]", "bad escape at byte 3",
                "line 1, column 4: expected an escape: \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\u and four hex digits, found \\q"
            ),
            ("[tru]", "expected true at byte 1", "line 1, column 2: expected true, found tru"),
            ("\n\n   x", "expected a value at byte 5", "line 3, column 4: expected a value, found x"),
        ]
    )
    func errorsAreLocated(text: String, reason: String, located: String) throws {
        let error = try #require(Self.skipError(text), "\(text.debugDescription) was read")
        #expect(error.description == reason)
        #expect(error.located(in: Array(text.utf8)) == located)
    }

    @Test func aByteThatIsNotPrintableIsNamedInHex() throws {
        let error = try #require(Self.skipError("[1,\u{7F}]"))
        #expect(error.located(in: Array("[1,\u{7F}]".utf8)) == "line 1, column 4: expected a value, found \u{7F}")
        let nul = try #require(Self.skipError("[1 \u{0}]"))
        #expect(nul.located(in: Array("[1 \u{0}]".utf8)) == "line 1, column 4: expected ',' or ']', found the byte 0x0")
    }

    /// The strict loader's reads: a number or a literal is the whole token up to the next
    /// delimiter, named as found, at its first byte.
    @Test func numbersAndLiteralsAreWholeTokens() throws {
        func read(_ text: String, _ body: (inout JSONReader) throws(JSONReadError) -> String) -> String {
            Array(text.utf8).withUnsafeBytes { bytes in
                var reader = JSONReader(bytes)
                do throws(JSONReadError) {
                    return try body(&reader)
                } catch {
                    return error.located(in: bytes)
                }
            }
        }
        let number = "expected a number (digits without leading zeros, then an optional fraction and exponent)"
        #expect(read(" -12.5e+3,", { reader throws(JSONReadError) in try reader.readNumberText() }) == "-12.5e+3")
        #expect(read("1e400]", { reader throws(JSONReadError) in try reader.readNumberText() }) == "1e400")
        for bad in ["01", "1.", "-", "1x", "1\"a\"", "1.5.3", "1e+", "-.5"] {
            #expect(
                read(" \(bad) ", { reader throws(JSONReadError) in try reader.readNumberText() })
                    == "line 1, column 2: \(number), found \(bad)",
                "\(bad)"
            )
        }
        #expect(
            read(
                "null}",
                { reader throws(JSONReadError) in
                    try reader.readLiteral("null")
                    return "null"
                }
            ) == "null"
        )
        #expect(
            read(
                "nul",
                { reader throws(JSONReadError) in
                    try reader.readLiteral("null")
                    return "null"
                }
            ) == "line 1, column 1: expected a value, found nul"
        )
        #expect(
            read(
                "falsey",
                { reader throws(JSONReadError) in
                    try reader.readLiteral("false")
                    return "false"
                }
            ) == "line 1, column 1: expected a value, found falsey"
        )
    }

    /// Issue 24's bound, for the reader and the loader alike: a million `[` is an error, not a
    /// stack overflow.
    @Test func aMillionOpenBracketsAreAnErrorNotACrash() throws {
        let text = String(repeating: "[", count: 1_000_000)
        let error = try #require(Self.skipError(text))
        #expect(
            error.description == "objects and arrays nest deeper than \(JSONReader.maximumDepth) levels at byte 512"
        )
        #expect(
            error.located(in: Array(text.utf8))
                == "line 1, column 513: expected objects and arrays nested at most 512 deep, found '['"
        )
    }

    @Test(
        "invalid UTF-8 in a string is refused where it starts, read or skipped; valid UTF-8 of every length is read",
        arguments: [
            ([0x22, 0x61, 0xFF, 0x22], 2),  // a byte that never starts UTF-8
            ([0x22, 0x80, 0x22], 1),  // a stray continuation byte
            ([0x22, 0xC0, 0xAF, 0x22], 1),  // an overlong '/'
            ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1),  // an overlong three-byte form
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // a surrogate (U+D800)
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // beyond U+10FFFF
            ([0x22, 0xE2, 0x82, 0x22], 1),  // cut short by the closing quote
            ([0x22, 0xF0, 0x9F, 0x98], 1),  // cut short by the end of the text
        ] as [([UInt8], Int)]
    )
    func invalidUTF8IsRefused(bytes: [UInt8], offset: Int) {
        for text in [bytes, [0x5B] + bytes + [0x5D]] {
            let error = Self.readError(text)
            #expect(error?.reason == "invalid UTF-8", "\(text)")
            #expect(error?.offset == offset + (text.first == 0x5B ? 1 : 0))
            #expect(error?.located(in: text).contains("expected UTF-8 text, found the byte 0x") == true)
        }
        #expect(Self.readError(Array("\"é € 😀 \u{7F}\"".utf8)) == nil)
    }

    /// Reads one value of `bytes` (a string as a `String`, anything else skipped); the error, if any.
    static func readError(_ bytes: [UInt8]) -> JSONReadError? {
        bytes.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            do throws(JSONReadError) {
                if reader.peek() == UInt8(ascii: "\"") { _ = try reader.readString() } else { try reader.skipValue() }
                try reader.expectEnd()
                return nil
            } catch {
                return error
            }
        }
    }
}
