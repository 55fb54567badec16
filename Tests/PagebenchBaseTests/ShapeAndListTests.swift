import Foundation
import Testing

@testable import PagebenchBase

/// Issue 24: valid JSON of the wrong shape, and lists with an empty element, are refused with
/// a message that names the field, what goes there and what the file has.
@Suite struct ShapeAndListTests {
    struct Settings: Decodable {
        var count: Int
        var seed: UInt64?
        var ratio: Double?
        var nested: Nested?
        var list: [Int]?

        struct Nested: Decodable {
            var flag: Bool
            var name: String?
        }
    }

    /// What JSONDecoder reports, explained.
    func explain(_ text: String, prefix: String = "") -> String? {
        do {
            _ = try JSONDecoder().decode(Settings.self, from: Data(text.utf8))
            return nil
        } catch let error as DecodingError {
            return StrictJSON.explain(error, decoding: Settings.self, from: Array(text.utf8), prefix: prefix)?
                .description
        } catch {
            return "\(error)"
        }
    }

    @Test(
        "a number that does not fit its field is named with its path and the field's type",
        arguments: [
            (#"{"count": 2.5}"#, "'count' must be a whole number, found 2.5"),
            (#"{"count": 1e300}"#, "'count' must be a whole number, found 1e300"),
            (#"{"count": 99999999999999999999}"#, "'count' must be a whole number, found 99999999999999999999"),
            (#"{"count": 1, "seed": -1}"#, "'seed' must be a whole number from 0 to 18446744073709551615, found -1"),
            (#"{"count": 1, "list": [1, 2, 3.5]}"#, "'list[2]' must be a whole number, found 3.5"),
        ]
    )
    func numbersThatDoNotFit(text: String, expected: String) {
        #expect(explain(text) == expected)
    }

    @Test(
        "a value of another shape says what goes there in words, not Swift's type names",
        arguments: [
            (#"{"count": "3"}"#, "'settings.count' must be a whole number, found the string \"3\""),
            (#"{"count": 1, "nested": 5}"#, "'settings.nested' must be an object, found 5"),
            (#"{"count": 1, "list": {"a": 1}}"#, "'settings.list' must be a list, found an object"),
            (#"{"count": 1, "nested": {"flag": 1}}"#, "'settings.nested.flag' must be true or false, found 1"),
            (#"{"count": 1, "ratio": "x"}"#, "'settings.ratio' must be a number, found the string \"x\""),
            (#"{"seed": 1}"#, "'settings.count' is missing; give it a value"),
            (#"[1]"#, "'settings' must be an object, found a list"),
        ]
    )
    func otherShapes(text: String, expected: String) {
        #expect(explain(text, prefix: "settings") == expected)
    }

    @Test func exactNumbersStillDecode() throws {
        // The explanation never invents a problem for a file JSONDecoder reads.
        #expect(explain(#"{"count": 9223372036854775807, "seed": 18446744073709551615, "list": [1e3]}"#) == nil)
    }

    @Test(
        "a number no reader can hold is located, with its path",
        arguments: [
            (
                #"{"a": {"b": 1e400}}"#,
                "line 1, column 13: expected a number of at most about 1.8e308 in size, found 1e400 at 'a.b'"
            ),
            (
                #"[-1e999]"#,
                "line 1, column 2: expected a number of at most about 1.8e308 in size, found -1e999 at '[0]'"
            ),
        ]
    )
    func outOfRangeNumbers(text: String, expected: String) {
        #expect(StrictJSON.syntaxError(in: Array(text.utf8)) == expected)
    }

    @Test(
        "a list with an empty element is refused, naming the element",
        arguments: [
            ("1,,4", 2), (",1", 1), ("1,", 2), ("", 1), (" , ", 1),
        ]
    )
    func emptyElements(text: String, position: Int) {
        #expect(throws: ListText.EmptyElement(position: position, text: text)) { try ListText.elements(of: text) }
    }

    @Test func elementsAreTrimmed() throws {
        #expect(try ListText.elements(of: " 1, 8 ,64 ") == ["1", "8", "64"])
        #expect(try ListText.elements(of: "zipf:1000:1.1", separator: ":") == ["zipf", "1000", "1.1"])
        #expect(
            ListText.EmptyElement(position: 2, text: "1,,4").problem(example: "1,8,64")
                == "element 2 of '1,,4' is empty; separate the elements with single commas, as in '1,8,64'"
        )
    }
}
