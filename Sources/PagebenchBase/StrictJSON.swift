/// What `JSONSerialization` and `JSONDecoder` let through silently and configuration files
/// must not have: a key repeated in one object (the last one would win), `null` values
/// (a key present that says nothing) and keys the reader does not know (almost always
/// typos). ``firstProblem(in:nullable:)`` finds the first duplicate or null, named by its
/// path (`store.serviceTime.base`), in text that is otherwise valid JSON;
/// ``unknownKey(in:known:path:)`` the first key, at any depth, that a decoded value does not
/// give back when encoded.
public enum StrictJSON {
    /// The first duplicate key or `null` value in `bytes`, described with its path, or nil.
    /// Text that is not JSON is left to the JSON parser to describe (nil here).
    ///
    /// - Parameter nullable: paths where `null` is a value of the format (a shard file's
    ///   `startAt`), with `[]` standing for any array index: `phases[].drains`.
    public static func firstProblem(in bytes: [UInt8], nullable: Set<String> = []) -> String? {
        var scanner = Scanner(bytes: bytes, nullable: nullable)
        return scanner.value(path: "")
    }

    /// The first key of `given` (at any depth, through objects and arrays) that `known` lacks
    /// at the same place, described with its path and the keys that level has; nil when every
    /// key is known.
    ///
    /// `given` is the text as `JSONSerialization` read it; `known` is the decoded value
    /// encoded again, so that every key the reader understands comes back. A key whose value
    /// the reader skipped is unknown.
    public static func unknownKey(in given: [String: Any], known: [String: Any], path: String = "") -> String? {
        for key in given.keys.sorted() {
            let keyPath = path.isEmpty ? key : path + "." + key
            guard let knownValue = known[key] else {
                return "unknown key \"\(keyPath)\"; known keys\(path.isEmpty ? "" : " of \(path)") are "
                    + known.keys.sorted().joined(separator: ", ")
            }
            if let unknown = unknownKey(inValue: given[key] as Any, known: knownValue, path: keyPath) { return unknown }
        }
        return nil
    }

    private static func unknownKey(inValue given: Any, known: Any, path: String) -> String? {
        if let object = given as? [String: Any], let knownObject = known as? [String: Any] {
            return unknownKey(in: object, known: knownObject, path: path)
        }
        if let array = given as? [Any], let knownArray = known as? [Any], array.count == knownArray.count {
            for (index, element) in array.enumerated() {
                if let unknown = unknownKey(inValue: element, known: knownArray[index], path: "\(path)[\(index)]") {
                    return unknown
                }
            }
        }
        return nil
    }

    /// Objects and arrays nest at most this deep in text the scanner reads: it recurses,
    /// and a file of a million `[` must be an error, not a stack overflow (issue 24).
    public static let maximumDepth = 512

    struct Scanner {
        let bytes: [UInt8]
        /// Objects and arrays open around the value being scanned.
        var depth = 0
        /// Paths where null is allowed, array indices written `[]`.
        let nullable: Set<String>
        var index = 0
        /// Set when the text turns out not to be JSON: the scan stops without a finding.
        var malformed = false
        /// Where and why the text stopped being JSON (the first place), and what was found
        /// there when it is more than the byte at that place.
        var failure: (index: Int, expected: String, found: String?)?

        mutating func fail(_ expected: String, at position: Int? = nil, found: String? = nil) {
            if failure == nil { failure = (position ?? index, expected, found) }
            malformed = true
        }

        init(bytes: [UInt8], nullable: Set<String> = []) {
            self.bytes = bytes
            self.nullable = nullable
        }

        /// `path` with every array index written `[]`: `phases[3].drains` → `phases[].drains`.
        static func anyIndex(_ path: String) -> String {
            var result = ""
            var inIndex = false
            for character in path {
                if character == "[" {
                    inIndex = true
                    result += "[]"
                } else if character == "]" {
                    inIndex = false
                } else if !inIndex {
                    result.append(character)
                }
            }
            return result
        }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        /// Scans one value; returns the first problem inside it.
        mutating func value(path: String) -> String? {
            skipWhitespace()
            guard index < bytes.count else {
                fail("a value")
                return nil
            }
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < StrictJSON.maximumDepth else {
                    fail("objects and arrays nested at most \(StrictJSON.maximumDepth) deep")
                    return nil
                }
                depth += 1
                defer { depth -= 1 }
                return bytes[index] == UInt8(ascii: "{") ? object(path: path) : array(path: path)
            case UInt8(ascii: "\""):
                _ = string()
                return nil
            case UInt8(ascii: "n"):
                index += 4
                if !nullable.isEmpty, nullable.contains(Self.anyIndex(path)) { return nil }
                return "'\(path.isEmpty ? "(top level)" : path)' is null; give a value or leave the key out"
            case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ":"):
                fail("a value")
                return nil
            default:
                // A number, true or false: skip to the next delimiter.
                let start = index
                while index < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(bytes[index]),
                    ![0x20, 0x09, 0x0A, 0x0D].contains(bytes[index])
                {
                    index += 1
                }
                // A number no reader can hold (1e400), or one JSON does not allow (01, 1., .5,
                // +1), fails the JSON parser without saying where.
                let token = String(decoding: bytes[start..<index], as: UTF8.self)
                let at = path.isEmpty ? "" : " at '\(path)'"
                if let first = token.utf8.first, first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) {
                    if !Self.isNumber(bytes[start..<index]) {
                        fail("a number (digits without leading zeros, then an optional fraction and exponent)", at: start, found: token + at)
                    } else if let number = Double(token), !number.isFinite {
                        fail("a number of at most about 1.8e308 in size", at: start, found: token + at)
                    }
                } else if token != "true", token != "false" {
                    fail("a value", at: start, found: token.isEmpty ? nil : token + at)
                }
                return nil
            }
        }

        mutating func object(path: String) -> String? {
            index += 1
            var keys: Set<String> = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return nil
            }
            while !malformed {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else {
                    fail("a key in double quotes")
                    return nil
                }
                let keyPath = path.isEmpty ? key : path + "." + key
                guard keys.insert(key).inserted else {
                    return "key '\(keyPath)' appears twice; keep one (JSON parsers would silently use the last)"
                }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    fail("':' after the key")
                    return nil
                }
                index += 1
                if let problem = value(path: keyPath) { return problem }
                guard another(closing: UInt8(ascii: "}")) else { return nil }
            }
            return nil
        }

        /// After a member: true at a comma (another follows), false at `closing` (the
        /// container ends) or anything else (malformed, noted).
        mutating func another(closing: UInt8) -> Bool {
            skipWhitespace()
            let expected = "',' or '\(Character(UnicodeScalar(closing)))'"
            guard index < bytes.count else {
                fail(expected)
                return false
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: ",") || byte == closing {
                index += 1
                return byte == UInt8(ascii: ",")
            }
            fail(expected)
            return false
        }

        mutating func array(path: String) -> String? {
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return nil
            }
            var element = 0
            while !malformed {
                if let problem = value(path: "\(path)[\(element)]") { return problem }
                element += 1
                guard another(closing: UInt8(ascii: "]")) else { return nil }
            }
            return nil
        }

        /// Whether `token` is a number as RFC 8259 writes it: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`.
        static func isNumber(_ token: ArraySlice<UInt8>) -> Bool {
            var index = token.startIndex
            func digits() -> Int {
                let start = index
                while index < token.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(token[index]) { index += 1 }
                return index - start
            }
            if index < token.endIndex, token[index] == UInt8(ascii: "-") { index += 1 }
            let leading = index
            let whole = digits()
            guard whole > 0, whole == 1 || token[leading] != UInt8(ascii: "0") else { return false }
            if index < token.endIndex, token[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { return false }
            }
            if index < token.endIndex, token[index] == UInt8(ascii: "e") || token[index] == UInt8(ascii: "E") {
                index += 1
                if index < token.endIndex, token[index] == UInt8(ascii: "+") || token[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { return false }
            }
            return index == token.endIndex
        }

        /// Scans a string at `index` (its opening quote); returns its text with escapes
        /// kept as written (enough to compare keys), or nil if it does not end.
        mutating func string() -> String? {
            let start = index + 1
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""):
                    let text = String(decoding: bytes[start..<index], as: UTF8.self)
                    index += 1
                    return text
                default: index += 1
                }
            }
            fail("the closing '\"' of a string")
            return nil
        }
    }

    /// Where text that is not JSON goes wrong, as `line L, column C: expected X`, or nil
    /// when this scanner finds nothing wrong (the JSON parser's own message then stands).
    public static func syntaxError(in bytes: [UInt8]) -> String? {
        var scanner = Scanner(bytes: bytes)
        // A duplicate key or null ends the scan early: that is not a syntax error.
        let problem = scanner.value(path: "")
        if scanner.failure == nil, problem == nil {
            scanner.skipWhitespace()
            if scanner.index < bytes.count { scanner.fail("the end of the text after the value") }
        }
        guard let failure = scanner.failure else { return nil }
        let before = bytes[..<min(failure.index, bytes.count)]
        let line = before.count { $0 == 0x0A } + 1
        let column = before.count - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
        let found: String
        if let text = failure.found {
            found = "found \(text)"
        } else if failure.index >= bytes.count {
            found = "found the end of the text"
        } else if (0x21..<0x7F).contains(bytes[failure.index]) {
            found = "found '\(Character(UnicodeScalar(bytes[failure.index])))'"
        } else {
            found = "found the byte 0x" + String(bytes[failure.index], radix: 16, uppercase: true)
        }
        return "line \(line), column \(column): expected \(failure.expected), \(found)"
    }
}
