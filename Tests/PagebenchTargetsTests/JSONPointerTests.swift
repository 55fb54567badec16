import Foundation
import Testing

@testable import PagebenchTargets

/// JSON Pointer (RFC 6901) over raw bytes: the items and continuation of every target kind
/// are found this way (T1).
@Suite struct JSONPointerTests {
    /// The RFC 6901 §5 example document.
    static let document = #"""
        {"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8}
        """#

    func value(_ pointer: String, in text: String = JSONPointerTests.document) throws -> String? {
        let parsed = try JSONPointer(pointer)
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { raw in
            try parsed.locate(in: raw).map { String(decoding: raw[$0], as: UTF8.self) }
        }
    }

    @Test func everyExampleOfRFC6901Section5() throws {
        #expect(
            try value("")
                == #"{"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8}"#
        )
        #expect(try value("/foo") == #"["bar", "baz"]"#)
        #expect(try value("/foo/0") == #""bar""#)
        #expect(try value("/") == "0")
        #expect(try value("/a~1b") == "1")
        #expect(try value("/c%d") == "2")
        #expect(try value("/e^f") == "3")
        #expect(try value("/g|h") == "4")
        #expect(try value("/i\\j") == "5")
        #expect(try value("/k\"l") == "6")
        #expect(try value("/ ") == "7")
        #expect(try value("/m~0n") == "8")
    }

    /// Issue 24: a pointer is followed recursively when it sets a body member; one deeper
    /// than any JSON pagebench reads is refused where the target file is read.
    @Test func aPointerDeeperThanAnyJSONReadIsRefused() throws {
        #expect(try JSONPointer(String(repeating: "/a", count: 512)).tokens.count == 512)
        #expect(throws: JSONPointer.SyntaxError.self) { try JSONPointer(String(repeating: "/a", count: 300_000)) }
    }

    @Test func escapesAreDecodedInOrderSoTilde01IsTildeOne() throws {
        #expect(try JSONPointer("/~01").tokens == ["~1"])
        #expect(try value("/~01", in: #"{"~1": true, "/": false}"#) == "true")
    }

    @Test func missingMembersIndicesAndScalarsOnTheWayAreNil() throws {
        #expect(try value("/nope") == nil)
        #expect(try value("/foo/2") == nil)
        #expect(try value("/foo/01") == nil)  // leading zeros are not indices
        #expect(try value("/foo/-") == nil)
        #expect(try value("/foo/0/x") == nil)
        #expect(try value("/data/items", in: #"{"data": null}"#) == nil)
    }

    @Test func nestedPathsSkipEarlierMembersAndKeepEscapedKeys() throws {
        let text = #"{"errors": [], "data": {"list\u0041": {"items": [1, {"x": [2]}], "nextToken": "t~/"}}}"#
        #expect(try value("/data/listA/items/1/x/0", in: text) == "2")
        #expect(try value("/data/listA/nextToken", in: text) == #""t~/""#)
    }

    @Test func malformedPointersAreRejectedNamingTheRule() {
        #expect(throws: JSONPointer.SyntaxError.self) { try JSONPointer("items") }
        #expect(throws: JSONPointer.SyntaxError.self) { try JSONPointer("/a~2") }
        #expect(throws: JSONPointer.SyntaxError.self) { try JSONPointer("/a~") }
    }

    @Test func malformedJSONOnTheWayIsAnError() {
        #expect(throws: (any Error).self) { try value("/a/b", in: #"{"a": {"b" 1}}"#) }
    }
}
