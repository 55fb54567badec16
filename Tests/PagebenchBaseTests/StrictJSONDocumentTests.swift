import Foundation
import PagebenchBase
import Testing

/// The one strict loader (StrictJSON.Document): parse once, refuse repeated keys and nulls,
/// decode any section of the tree, name unknown keys by path; and the small shared helpers.
@Suite struct StrictJSONDocumentTests {
    struct Limits: Codable, Equatable {
        var limit: Int
        var rate: Double?
    }

    struct Settings: Codable, Equatable {
        var name: String
        var limits: Limits
    }

    @Test func sectionsDecodeFromTheOneTreeWithTheirPaths() throws {
        let document = try StrictJSON.Document(
            bytes: Array(#"{"a": {"name": "x", "limits": {"limit": 1e3}}, "b": {"limit": 2.5}}"#.utf8)
        )
        #expect(document.keys == ["a", "b"])
        #expect(try document.decode(Settings.self, at: "a") == Settings(name: "x", limits: Limits(limit: 1000)))
        #expect(throws: StrictJSON.LoadError.self) { try document.decode(Limits.self, at: "b") }
        do {
            _ = try document.decode(Limits.self, at: "b", prefix: "b")
        } catch {
            guard case .shape(_, let shape?) = error else {
                Issue.record("expected a shape problem, got \(error)")
                return
            }
            #expect(shape.description == "'b.limit' must be a whole number, found 2.5")
        }
    }

    @Test func unknownKeysAreNamedByPathAtAnyDepth() throws {
        let document = try StrictJSON.Document(bytes: Array(#"{"name": "x", "limits": {"limit": 1, "limt": 2}}"#.utf8))
        let settings = try document.decode(Settings.self)
        #expect(document.unknownKey(of: settings) == #"unknown key "limits.limt"; known keys of limits are limit"#)
        let clean = try StrictJSON.Document(bytes: Array(#"{"name": "x", "limits": {"limit": 1}}"#.utf8))
        #expect(clean.unknownKey(of: try clean.decode(Settings.self)) == nil)
    }

    @Test func repeatedKeysAreAlwaysRefusedNullsOnlyWhereTheFormatHasNone() throws {
        func problem(_ text: String, nullable: Set<String>? = []) -> String? {
            do {
                _ = try StrictJSON.Document(bytes: Array(text.utf8), nullable: nullable)
                return nil
            } catch {
                guard case .problem(let problem) = error else { return "\(error)" }
                return problem
            }
        }
        #expect(problem(#"{"a": 1, "a": 2}"#)?.hasPrefix("key 'a' appears twice") == true)
        #expect(problem(#"{"a": 1, "a": 2}"#, nullable: nil)?.hasPrefix("key 'a' appears twice") == true)
        #expect(problem(#"{"a": [1, null]}"#) == "'a[1]' is null; give a value or leave the key out")
        #expect(problem(#"{"a": [1, null]}"#, nullable: ["a[]"]) == nil)
        #expect(problem(#"{"a": [1, null]}"#, nullable: nil) == nil)
    }

    @Test func textThatIsNotJSONIsLocated() {
        do {
            _ = try StrictJSON.Document(bytes: Array(#"{"scale":"#.utf8))
            Issue.record("accepted text that is not JSON")
        } catch {
            guard case .notJSON(let located, _) = error else {
                Issue.record("expected notJSON, got \(error)")
                return
            }
            #expect(located == "line 1, column 10: expected a value, found the end of the text")
        }
    }

    @Test func percentEncodingKeepsOnlyUnreservedCharacters() {
        #expect(PercentEncoding.encoded("AZaz09-._~") == "AZaz09-._~")
        #expect(PercentEncoding.encoded("a b/c=d&é") == "a%20b%2Fc%3Dd%26%C3%A9")
        #expect(PercentEncoding.encoded("") == "")
    }

    @Test func signalNamesAndDurationSeconds() {
        #expect(SignalName.of(SIGINT) == "SIGINT")
        #expect(SignalName.of(SIGTERM) == "SIGTERM")
        #expect(SignalName.of(SIGKILL) == "SIGKILL")
        #expect(SignalName.of(77) == "signal 77")
        #expect(Duration.milliseconds(1500).totalSeconds == 1.5)
        #expect(Duration.seconds(0).totalSeconds == 0)
    }
}
