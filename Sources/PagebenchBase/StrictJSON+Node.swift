extension StrictJSON {
    /// One JSON value; numbers keep their text, so that whether they fit a field is exact.
    public enum Node: Sendable, CustomStringConvertible {
        case object([(key: String, value: Node)])
        case array([Node])
        case string(String)
        case number(String)
        case bool(Bool)
        case null

        public var description: String {
            switch self {
            case .object: "an object"
            case .array: "a list"
            case .string(let text): "the string \"\(text.count > 40 ? String(text.prefix(40)) + "…" : text)\""
            case .number(let text): text
            case .bool(let value): String(value)
            case .null: "null"
            }
        }

        /// The value as compact JSON text, object keys sorted, numbers as written, `/` not
        /// escaped: one text for one value however the file spaced or ordered it (a scenario's
        /// `target` section, compared between files and printed by `--print-scenarios`).
        public var sortedCompactText: String {
            var text = ""
            write(into: &text)
            return text
        }

        private func write(into text: inout String) {
            switch self {
            case .object(let members):
                text += "{"
                for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                    if index > 0 { text += "," }
                    JSONString.quote(member.key, into: &text)
                    text += ":"
                    member.value.write(into: &text)
                }
                text += "}"
            case .array(let elements):
                text += "["
                for (index, element) in elements.enumerated() {
                    if index > 0 { text += "," }
                    element.write(into: &text)
                }
                text += "]"
            case .string(let value): JSONString.quote(value, into: &text)
            case .number(let value): text += value
            case .bool(let value): text += value ? "true" : "false"
            case .null: text += "null"
            }
        }

        /// The value of `key` when this is an object that has it.
        public func member(_ key: String) -> Node? {
            guard case .object(let members) = self else { return nil }
            return members.last { $0.key == key }?.value
        }

        /// The value at `path`, if the tree has one there.
        func at(_ path: [any CodingKey]) -> Node? {
            var node: Node? = self
            for key in path {
                if let index = key.intValue, case .array(let elements)? = node {
                    node = elements.indices.contains(index) ? elements[index] : nil
                } else {
                    node = node?.member(key.stringValue)
                }
            }
            return node
        }
    }

    /// Reads `bytes` as one JSON value into a ``Node`` tree (strings decoded, numbers as
    /// written, keys in file order, a repeated key kept twice) with pagebench's one JSON
    /// tokenizer, ``JSONReader``.
    ///
    /// Containers nest at most ``maximumDepth`` deep. The open ones are kept in a list, not
    /// on the call stack, so a file of a million `[` is an error, not a stack overflow
    /// (issue 24).
    ///
    /// - Throws: where and why the text stops being JSON, for ``JSONReadError/located(in:)``
    ///   (`line 1, column 10: expected a value, found the end of the text`); a number beyond
    ///   a `Double`'s range (`1e400`, which Foundation's parser refuses without saying where)
    ///   included. A token that is not a value or not a number is named with the path of the
    ///   value (`found 01 at 'a.b'`); a string that never ends is located at the end of the
    ///   text, whatever else is wrong inside it.
    ///
    /// The text must be UTF-8 (RFC 8259 8.1): bytes that are not are refused where they
    /// start (`expected UTF-8 text, found the byte 0xFF`), never repaired into U+FFFD.
    ///
    /// - Parameter finiteNumbers: false keeps a number beyond a `Double`'s range as written
    ///   (a target file's request body may hold one; its fields' bounds checks name it).
    static func tree(_ bytes: [UInt8], finiteNumbers: Bool = true) throws(JSONReadError) -> Node {
        if let offset = firstInvalidUTF8(bytes) {
            throw JSONReadError(
                reason: "invalid UTF-8",
                offset: offset,
                expected: "UTF-8 text (save the file as UTF-8)",
                found: "the byte 0x" + String(bytes[offset], radix: 16, uppercase: true) + " (not UTF-8)"
            )
        }
        let result = bytes.withUnsafeBytes { buffer -> Result<Node, JSONReadError> in
            var reader = JSONReader(buffer)
            do throws(JSONReadError) {
                return .success(try tree(&reader, finiteNumbers: finiteNumbers))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The offset of the first byte of `bytes` that does not start a valid UTF-8 sequence
    /// (an overlong form, a surrogate, a stray continuation byte, a sequence cut short); nil
    /// when all of it is UTF-8.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        guard String(validating: bytes, as: UTF8.self) == nil else { return nil }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
    }

    /// A container being read: its members so far, and for an object the key of the value
    /// being read.
    private enum OpenContainer {
        case object([(key: String, value: Node)], key: String)
        case array([Node])

        var closing: UInt8 {
            if case .object = self { return UInt8(ascii: "}") }
            return UInt8(ascii: "]")
        }

        mutating func append(_ value: Node) {
            switch self {
            case .object(var members, let key):
                self = .array([])  // drops the reference, so that `members` is appended in place
                members.append((key, value))
                self = .object(members, key: "")
            case .array(var elements):
                self = .array([])
                elements.append(value)
                self = .array(elements)
            }
        }

        var node: Node {
            switch self {
            case .object(let members, _): .object(members)
            case .array(let elements): .array(elements)
            }
        }
    }

    private static func tree(_ reader: inout JSONReader, finiteNumbers: Bool) throws(JSONReadError) -> Node {
        var open: [OpenContainer] = []
        while true {
            // A value starts here.
            var value: Node
            let first = reader.peek()
            switch first {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard open.count < maximumDepth else { throw reader.tooDeep() }
                _ = reader.consume(first!)
                if first == UInt8(ascii: "{") {
                    if reader.consume(UInt8(ascii: "}")) {
                        value = .object([])
                    } else {
                        open.append(.object([], key: try key(&reader)))
                        continue
                    }
                } else {
                    if reader.consume(UInt8(ascii: "]")) {
                        value = .array([])
                    } else {
                        open.append(.array([]))
                        continue
                    }
                }
            case UInt8(ascii: "\""):
                value = .string(try string(&reader) { reader throws(JSONReadError) in try reader.readString() })
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                do throws(JSONReadError) {
                    switch first {
                    case UInt8(ascii: "t"):
                        try reader.readLiteral("true")
                        value = .bool(true)
                    case UInt8(ascii: "f"):
                        try reader.readLiteral("false")
                        value = .bool(false)
                    default:
                        try reader.readLiteral("null")
                        value = .null
                    }
                } catch {
                    throw error.found(suffix: at(open))
                }
            case .some(let byte)
            where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
                let start = reader.offset
                let text: String
                do throws(JSONReadError) {
                    text = try reader.readNumberText()
                } catch {
                    throw error.found(suffix: at(open))
                }
                // Valid JSON, but no reader of pagebench's files can hold it.
                if finiteNumbers, let number = Double(text), !number.isFinite {
                    throw JSONReadError(
                        reason: "number out of range",
                        offset: start,
                        expected: "a number of at most about 1.8e308 in size",
                        found: text + at(open)
                    )
                }
                value = .number(text)
            default:
                throw reader.valueError().found(suffix: at(open))
            }
            // The value is whole: add it to its container, and close every container it ends.
            while true {
                guard var container = open.popLast() else {
                    try reader.expectEnd()
                    return value
                }
                container.append(value)
                if reader.consume(UInt8(ascii: ",")) {
                    if case .object(let members, _) = container {
                        container = .object(members, key: try key(&reader))
                    }
                    open.append(container)
                    break
                }
                try reader.expectClosing(container.closing)
                value = container.node
            }
        }
    }

    /// An object's key and its colon.
    private static func key(_ reader: inout JSONReader) throws(JSONReadError) -> String {
        let key = try string(&reader) { reader throws(JSONReadError) in try reader.readKey().description }
        try reader.expectColon()
        return key
    }

    /// A string read by `read`; one that never ends is located at the end of the text,
    /// as "the closing '"' of a string", whatever else is wrong inside it (a control
    /// character, an escape).
    private static func string(
        _ reader: inout JSONReader,
        _ read: (inout JSONReader) throws(JSONReadError) -> String
    ) throws(JSONReadError) -> String {
        let quote = reader.peek() == UInt8(ascii: "\"") ? reader.offset : nil
        do throws(JSONReadError) {
            return try read(&reader)
        } catch {
            guard let quote, !reader.stringCloses(from: quote) else { throw error }
            throw JSONReadError(
                reason: "unterminated string",
                offset: reader.byteCount,
                expected: "the closing '\"' of a string"
            )
        }
    }

    /// ` at 'path'` for the value being read in the innermost of `open` (`a.b`, `list[2]`),
    /// or nothing at the top level.
    private static func at(_ open: [OpenContainer]) -> String {
        var path = ""
        for container in open {
            switch container {
            case .object(_, let key): path += path.isEmpty ? key : "." + key
            case .array(let elements): path += "[\(elements.count)]"
            }
        }
        return path.isEmpty ? "" : " at '\(path)'"
    }
}
