import PagebenchBase
import Testing

@Suite struct StrictJSONTests {
    @Test("duplicate keys and nulls are found with their path; valid text passes", arguments: [
        (#"{"a": 1, "b": {"c": [1, {"d": 2}], "e": "x\"y"}}"#, nil as String?),
        (#"{"a": 1, "a": 2}"#, "key 'a' appears twice"),
        (#"{"a": {"b": 1, "c": {"d": 1, "d": 1}}}"#, "key 'a.c.d' appears twice"),
        (#"{"a": [1, 2, null]}"#, "'a[2]' is null"),
        (#"{"k\"q": 1, "k\"q": 2}"#, #"key 'k\"q' appears twice"#),
        (#"{"a": {"x": 1}, "b": {"x": 1}}"#, nil),
        (#"null"#, "'(top level)' is null"),
        (#"{"a": "#, nil),  // not JSON: the parser's to describe
    ])
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

    @Test("text that is not JSON is located by line and column, with what was expected", arguments: [
        ("{\"a\": 1\n  \"b\": 2}", "line 2, column 3: expected ',' or '}', found '\"'"),
        ("{\"a\": }", "line 1, column 7: expected a value, found '}'"),
        ("{\"a\" 1}", "line 1, column 6: expected ':' after the key, found '1'"),
        ("[1, 2", "line 1, column 6: expected ',' or ']', found the end of the text"),
        ("{\"a\u{0}", "line 1, column 5: expected the closing '\"' of a string, found the end of the text"),
        ("{} {}", "line 1, column 4: expected the end of the text after the value, found '{'"),
    ])
    func syntaxErrorsAreLocated(text: String, expected: String) {
        let error = StrictJSON.syntaxError(in: Array(text.utf8))
        #expect(error?.hasPrefix(expected) == true, "\(error ?? "nil")")
    }

    @Test func validTextHasNoSyntaxError() {
        #expect(StrictJSON.syntaxError(in: Array(#"{"a": [1, {"b": "c\"d"}], "e": true}"#.utf8)) == nil)
    }
}
