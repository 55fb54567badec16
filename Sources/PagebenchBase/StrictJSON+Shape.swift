extension StrictJSON {
    /// A value of valid JSON that is not what its reader expects there: where, and what is
    /// wrong (`must be a whole number, found 2.5`).
    public struct ShapeProblem: Sendable, Equatable, CustomStringConvertible {
        /// The value's path in the file, `phases[0].counters.pages` (`(top level)` for the whole).
        public let path: String
        /// What is wrong with it.
        public let problem: String

        public var description: String { "'\(path)' \(problem)" }
    }

    /// Why valid JSON does not decode as `type`, in words that name the path, what the reader
    /// expects there and what the file has: `'workload.limit' must be a whole number, found
    /// 2.5`, `'seed' must be a whole number from 0 to 18446744073709551615, found -1`.
    ///
    /// `JSONDecoder` reports a number that does not fit its field (a fraction where a whole
    /// number goes, a negative seed, 1e300 for a count) as "The given data was not valid
    /// JSON." with no path at all, and names other mismatches by Swift type
    /// (`Dictionary<String, Any>`). This reads `bytes` again and decodes `type` from them with
    /// a decoder that keeps every number's exact text, to find and name the field.
    ///
    /// - Parameters:
    ///   - error: what `JSONDecoder` threw for these bytes.
    ///   - prefix: the path of the decoded value within its file (`workload`), or empty.
    /// - Returns: the explanation, or nil when the error is not about the JSON's shape (an
    ///   error the type's own decoding threw, or one this reader cannot reproduce).
    public static func explain<T: Decodable>(
        _ error: DecodingError,
        decoding type: T.Type,
        from bytes: [UInt8],
        prefix: String = ""
    ) -> ShapeProblem? {
        if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
            // No path: find the field with the reader that keeps numbers exact.
            guard let root = try? tree(bytes) else { return nil }
            do {
                _ = try T(from: ShapeDecoder(node: root, codingPath: []))
                return nil
            } catch let shapeError as DecodingError {
                guard case .dataCorrupted(let inner) = shapeError, inner.codingPath.isEmpty else {
                    return explain(shapeError, root: root, prefix: prefix)
                }
                return nil
            } catch {
                return nil
            }
        }
        return explain(error, root: try? tree(bytes), prefix: prefix)
    }

    /// Words for a decoding error whose context has a path.
    static func explain(_ error: DecodingError, root: Node?, prefix: String) -> ShapeProblem? {
        switch error {
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let found = root.flatMap { $0.at(context.codingPath) }.map(\.description) ?? "something else"
            return ShapeProblem(
                path: path(context.codingPath, prefix: prefix),
                problem: "must be \(words(for: type)), found \(found)"
            )
        case .keyNotFound(let key, let context):
            return ShapeProblem(
                path: path(context.codingPath + [key], prefix: prefix),
                problem: "is missing; give it a value"
            )
        case .dataCorrupted(let context):
            guard !context.codingPath.isEmpty else { return nil }
            // A reader's own words ("must be a whole number of bytes or …"), with what is there.
            let found = context.debugDescription.hasPrefix("must be") ? root.flatMap { $0.at(context.codingPath) } : nil
            return ShapeProblem(
                path: path(context.codingPath, prefix: prefix),
                problem: context.debugDescription + (found.map { ", found \($0)" } ?? "")
            )
        @unknown default:
            return nil
        }
    }

    /// A coding path as the files write it: `phases[0].counters.pages`.
    public static func path(_ keys: [any CodingKey], prefix: String = "") -> String {
        var text = prefix
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text.isEmpty ? "(top level)" : text
    }

    /// What a value of `type` is, in a file's words: `a whole number from 0 to …`, `a list`.
    public static func words(for type: Any.Type) -> String {
        switch type {
        case is Bool.Type: return "true or false"
        case is String.Type, is Substring.Type: return "a string"
        case is Double.Type, is Float.Type: return "a number"
        case is UInt64.Type, is UInt.Type: return "a whole number from 0 to \(UInt64.max)"
        case is UInt32.Type: return "a whole number from 0 to \(UInt32.max)"
        case is Int.Type, is Int64.Type: return "a whole number"
        case is Int32.Type: return "a whole number from \(Int32.min) to \(Int32.max)"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array<") || name.hasPrefix("Set<") { return "a list" }
            if name.hasPrefix("Dictionary<") || name.hasPrefix("KeyedDecodingContainer") { return "an object" }
            return "a value of type \(name)"
        }
    }
}

// MARK: - A decoder over the tree

/// Decodes from a ``StrictJSON/Node`` tree, throwing `typeMismatch` with the exact path for
/// a value of another shape and for a number that does not fit the field's type exactly.
struct ShapeDecoder: Decoder {
    let node: StrictJSON.Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func mismatch(_ type: Any.Type) -> DecodingError {
        .typeMismatch(type, DecodingError.Context(codingPath: codingPath, debugDescription: "found \(node)"))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = node else { throw mismatch([String: Any].self) }
        return KeyedDecodingContainer(Keyed<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = node else { throw mismatch([Any].self) }
        return Unkeyed(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

    /// Decodes `type` from this decoder's node: numbers, strings and booleans here, anything
    /// else by its own `init(from:)`.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        switch type {
        case is Bool.Type:
            guard case .bool(let value) = node else { throw mismatch(type) }
            return value as! T
        case is String.Type:
            guard case .string(let value) = node else { throw mismatch(type) }
            return value as! T
        case is Double.Type:
            guard case .number(let text) = node, let value = Double(text), value.isFinite else { throw mismatch(type) }
            return value as! T
        case is Float.Type:
            guard case .number(let text) = node, let value = Float(text), value.isFinite else { throw mismatch(type) }
            return value as! T
        default:
            if let integer = type as? any FixedWidthInteger.Type {
                guard case .number(let text) = node, let value = Self.integer(text, as: integer) else {
                    throw mismatch(type)
                }
                return value as! T
            }
            return try T(from: self)
        }
    }

    /// `text` as exactly a value of `type`: written as a whole number in range, or a
    /// number whose value is one (`1e3`, `2.0`).
    static func integer<I: FixedWidthInteger>(_ text: String, as type: I.Type) -> I? {
        if let value = I(text) { return value }
        guard let double = Double(text), double.isFinite, double == double.rounded() else { return nil }
        return I(exactly: double)
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [(key: String, value: StrictJSON.Node)]
        let codingPath: [any CodingKey]

        var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }
        func contains(_ key: Key) -> Bool { members.contains { $0.key == key.stringValue } }

        func child(_ key: Key) throws -> ShapeDecoder {
            guard let node = members.last(where: { $0.key == key.stringValue })?.value else {
                throw DecodingError.keyNotFound(
                    key,
                    DecodingError.Context(codingPath: codingPath, debugDescription: "no key \(key.stringValue)")
                )
            }
            return ShapeDecoder(node: node, codingPath: codingPath + [key])
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            if case .null = try child(key).node { return true }
            return false
        }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let decoder = try child(key)
            if case .null = decoder.node {
                throw DecodingError.valueNotFound(
                    type,
                    DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "found null")
                )
            }
            return try decoder.decode(type)
        }
        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type,
            forKey key: Key
        ) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try child(key).container(keyedBy: type)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try child(key).unkeyedContainer()
        }
        func superDecoder() throws -> any Decoder {
            ShapeDecoder(node: .object(members), codingPath: codingPath)
        }
        func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let elements: [StrictJSON.Node]
        let codingPath: [any CodingKey]
        var currentIndex = 0

        init(elements: [StrictJSON.Node], codingPath: [any CodingKey]) {
            self.elements = elements
            self.codingPath = codingPath
        }

        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        mutating func next(_ type: Any.Type) throws -> ShapeDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    type,
                    DecodingError.Context(codingPath: codingPath, debugDescription: "the list has no more elements")
                )
            }
            defer { currentIndex += 1 }
            return ShapeDecoder(node: elements[currentIndex], codingPath: codingPath + [IndexKey(currentIndex)])
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, case .null = elements[currentIndex] else { return false }
            currentIndex += 1
            return true
        }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let decoder = try next(type)
            if case .null = decoder.node {
                throw DecodingError.valueNotFound(
                    type,
                    DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "found null")
                )
            }
            return try decoder.decode(type)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type
        ) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try next([String: Any].self).container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try next([Any].self).unkeyedContainer()
        }
        mutating func superDecoder() throws -> any Decoder { try next(Any.self) }
    }

    struct Single: SingleValueDecodingContainer {
        let decoder: ShapeDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool {
            if case .null = decoder.node { return true }
            return false
        }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if case .null = decoder.node {
                throw DecodingError.valueNotFound(
                    type,
                    DecodingError.Context(codingPath: codingPath, debugDescription: "found null")
                )
            }
            return try decoder.decode(type)
        }
    }

    struct IndexKey: CodingKey {
        let intValue: Int?
        var stringValue: String { String(intValue ?? 0) }
        init(_ index: Int) { intValue = index }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }
}
