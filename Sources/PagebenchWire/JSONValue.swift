import Foundation
import PagebenchBase

/// A JSON value as a target file gives it (request bodies, GraphQL variables, DynamoDB
/// expression values): numbers keep the text they were written with, so a key or a
/// 64-bit number crosses pagebench unchanged. Objects render with their keys sorted.
package indirect enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number, as written.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
    /// Already-serialised JSON, written as is (a `LastEvaluatedKey` passed back verbatim).
    case raw(String)

    /// Containers nest at most this deep: the parser recurses, and a request body of a
    /// million `[` must be an error, not a stack overflow.
    package static let maximumDepth = 64

    /// Parses one JSON document.
    ///
    /// - Throws: `JSONReadError` naming the offset of the first problem.
    package static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONReadError) -> JSONValue {
        var reader = JSONReader(bytes)
        let value = try read(&reader, bytes, depth: 0)
        try reader.expectEnd()
        return value
    }

    /// Parses one JSON document from text.
    package static func parse(_ text: String) throws -> JSONValue {
        try parse(Data(text.utf8))
    }

    /// Parses one JSON document from bytes.
    package static func parse(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { bytes throws(JSONReadError) in try parse(bytes) }
    }

    private static func read(
        _ reader: inout JSONReader,
        _ bytes: UnsafeRawBufferPointer,
        depth: Int
    ) throws(JSONReadError) -> JSONValue {
        let next = reader.peek()
        if next == UInt8(ascii: "{") || next == UInt8(ascii: "["), depth >= maximumDepth {
            throw reader.error("objects and arrays nest deeper than \(maximumDepth) levels")
        }
        switch next {
        case UInt8(ascii: "{"):
            var members: [String: JSONValue] = [:]
            try reader.readObject { reader, key throws(JSONReadError) in
                let name = key.description
                guard members[name] == nil else { throw reader.error("the key '\(name)' appears twice") }
                members[name] = try read(&reader, bytes, depth: depth + 1)
            }
            return .object(members)
        case UInt8(ascii: "["):
            var elements: [JSONValue] = []
            try reader.readArray { reader throws(JSONReadError) in
                elements.append(try read(&reader, bytes, depth: depth + 1))
            }
            return .array(elements)
        case UInt8(ascii: "\""):
            return .string(try reader.readString())
        case UInt8(ascii: "n"):
            _ = try reader.readNull()
            return .null
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            let isTrue = reader.peek() == UInt8(ascii: "t")
            try reader.skipValue()
            return .bool(isTrue)
        default:
            _ = reader.peek()
            let start = reader.offset
            try reader.skipValue()
            return .number(
                String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<reader.offset]), as: UTF8.self)
            )
        }
    }

    /// The value as compact JSON.
    package var text: String {
        var text = ""
        render(into: &text)
        return text
    }

    /// Appends the value as compact JSON, object keys sorted.
    package func render(into text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let number): text += number
        case .string(let string): JSONString.quote(string, into: &text)
        case .raw(let json): text += json
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                element.render(into: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                JSONString.quote(key, into: &text)
                text += ":"
                members[key]!.render(into: &text)
            }
            text += "}"
        }
    }

    /// The string, when this is one.
    package var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The members, when this is an object.
    package var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// What kind of value this is, for messages: `a string`, `an object`, …
    package var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "true or false"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object, .raw: "an object"
        }
    }
}
