import PagebenchBase
import Testing

@Suite struct StrictJSONTests {
    @Test(
        "duplicate keys and nulls are found with their path; valid text passes",
        arguments: [
            (#"{"a": 1, "b": {"c": [1, {"d": 2}], "e": "x\"y"}}"#, nil as String?),
            (#"{"a": 1, "a": 2}"#, "key 'a' appears twice"),
            (#"{"a": {"b": 1, "c": {"d": 1, "d": 1}}}"#, "key 'a.c.d' appears twice"),
            (#"{"a": [1, 2, null]}"#, "'a[2]' is null"),
            // The key as it reads, as every file's loader (StrictJSON.Document) names it.
            (#"{"k\"q": 1, "k\"q": 2}"#, #"key 'k"q' appears twice"#),
            (#"{"a": {"x": 1}, "b": {"x": 1}}"#, nil),
            (#"null"#, "'(top level)' is null"),
            (#"{"a": "#, nil),  // not JSON: the parser's to describe
        ]
    )
    func findsTheFirstProblem(text: String, expected: String?) {
        let problem = StrictJSON.firstProblem(in: Array(text.utf8))
        if let expected {
            #expect(problem?.hasPrefix(expected) == true, "\(problem ?? "nil")")
        } else {
            #expect(problem == nil)
        }
    }

    @Test func controlCharacters() {
        #expect(ControlCharacters.contains("a\u{1B}[2J"))
        #expect(ControlCharacters.contains("tab\there"))
        #expect(ControlCharacters.contains("nul\u{0}"))
        #expect(ControlCharacters.contains("c1\u{85}"))
        #expect(!ControlCharacters.contains("plain name-1 ünïcode ✓"))
    }

    @Test(
        "text that is not JSON is located by line and column, with what was expected",
        arguments: [
            ("{\"a\": 1\n  \"b\": 2}", "line 2, column 3: expected ',' or '}', found '\"'"),
            ("{\"a\": }", "line 1, column 7: expected a value, found '}'"),
            ("{\"a\" 1}", "line 1, column 6: expected ':' after the key, found '1'"),
            ("[1, 2", "line 1, column 6: expected ',' or ']', found the end of the text"),
            ("{\"a\u{0}", "line 1, column 5: expected the closing '\"' of a string, found the end of the text"),
            ("{} {}", "line 1, column 4: expected the end of the text after the value, found '{'"),
        ]
    )
    func syntaxErrorsAreLocated(text: String, expected: String) {
        let error = StrictJSON.syntaxError(in: Array(text.utf8))
        #expect(error?.hasPrefix(expected) == true, "\(error ?? "nil")")
    }

    /// Issue 28: files are read with the one tokenizer (JSONReader). An error deep in a file
    /// is located; a token that is not a value or not a number is named with its path; a null
    /// or a repeated key before the error no longer hides where the error is.
    @Test(
        "errors anywhere in a file are located, tokens named with their path",
        arguments: [
            (
                "{\n  \"phases\": [\n    {\"drains\": 1},\n    {\"drains\": 2,},\n  ]\n}",
                "line 4, column 18: expected a key in double quotes, found '}'"
            ),
            (
                #"{"a": [1, {"b": [true, 01]}]}"#,
                "line 1, column 24: expected a number (digits without leading zeros, then an optional fraction and exponent), found 01 at 'a[1].b[1]'"
            ),
            (#"{"a": nul}"#, "line 1, column 7: expected a value, found nul at 'a'"),
            (#"{"a": [tru]}"#, "line 1, column 8: expected a value, found tru at 'a[0]'"),
            (#"{"a": null, "a": 1, "b": }"#, "line 1, column 26: expected a value, found '}'"),
            (
                #"{"a\"b": 1e400}"#,
                "line 1, column 10: expected a number of at most about 1.8e308 in size, found 1e400 at 'a\"b'"
            ),
            (
                "{\"a\": \"x\ty\"}",
                "line 1, column 9: expected a character of a string (control characters only as escapes, such as \\n or \\u0009), found the byte 0x9"
            ),
            ("{\"a\": \"x\ty", "line 1, column 11: expected the closing '\"' of a string, found the end of the text"),
            (
                #"["\ud800x"]"#,
                "line 1, column 9: expected a \\uDC00-\\uDFFF escape right after a \\uD800-\\uDBFF one (a surrogate pair), found 'x'"
            ),
        ]
    )
    func errorsAnywhereAreLocated(text: String, expected: String) {
        #expect(StrictJSON.syntaxError(in: Array(text.utf8)) == expected)
    }

    /// What Foundation's parser lets through and JSON does not allow (a trailing comma) is
    /// refused by the loader, located.
    @Test(arguments: [
        (#"{"a": [1, 2,]}"#, "line 1, column 13: expected a value, found ']'"),
        (#"{"a": 1,}"#, "line 1, column 9: expected a key in double quotes, found '}'"),
    ])
    func trailingCommasAreNotJSON(text: String, expected: String) {
        do {
            _ = try StrictJSON.Document(bytes: Array(text.utf8))
            Issue.record("\(text) was accepted")
        } catch {
            guard case .notJSON(let located, _) = error else {
                Issue.record("expected notJSON, got \(error)")
                return
            }
            #expect(located == expected)
        }
    }

    @Test func validTextHasNoSyntaxError() {
        #expect(StrictJSON.syntaxError(in: Array(#"{"a": [1, {"b": "c\"d"}], "e": true}"#.utf8)) == nil)
    }
}
