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
        #expect(StrictJSON.containsControlCharacter("a\u{1B}[2J"))
        #expect(StrictJSON.containsControlCharacter("tab\there"))
        #expect(StrictJSON.containsControlCharacter("nul\u{0}"))
        #expect(StrictJSON.containsControlCharacter("c1\u{85}"))
        #expect(!StrictJSON.containsControlCharacter("plain name-1 ünïcode ✓"))
    }
}
