/// What `JSONSerialization` and `JSONDecoder` let through silently and configuration files
/// must not have: a key repeated in one object (the last one would win), `null` values
/// (a key present that says nothing) and keys the reader does not know (almost always
/// typos). ``firstProblem(in:nullable:)`` finds the first duplicate or null, named by its
/// path (`store.serviceTime.base`), in text that is valid JSON; ``syntaxError(in:)`` where
/// text that is not JSON goes wrong;
/// ``unknownKey(in:known:path:)`` the first key, at any depth, that a decoded value does not
/// give back when encoded.
public enum StrictJSON {
    /// The first duplicate key or `null` value in `bytes`, described with its path, or nil.
    /// Text that is not JSON is left to the JSON parser to describe (nil here).
    ///
    /// - Parameter nullable: paths where `null` is a value of the format (a shard file's
    ///   `startAt`), with `[]` standing for any array index: `phases[].drains`.
    public static func firstProblem(in bytes: [UInt8], nullable: Set<String> = []) -> String? {
        guard let root = try? tree(bytes) else { return nil }
        return Document.firstProblem(in: root, path: "", nullable: nullable)
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

    /// Objects and arrays nest at most this deep in a file (``tree(_:)`` keeps them in a
    /// list, not on the stack: a file of a million `[` is an error, not a stack overflow,
    /// issue 24); the same bound as every other JSON pagebench reads.
    public static let maximumDepth = JSONReader.maximumDepth

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

    /// Where text that is not JSON goes wrong, as `line L, column C: expected X, found Y`, or
    /// nil when it is JSON as far as pagebench's reader sees (the JSON parser's own message
    /// then stands). Read with the one tokenizer, ``JSONReader``, as the tree is
    /// (``tree(_:)``, ``JSONReadError/located(in:)``).
    public static func syntaxError(in bytes: [UInt8]) -> String? {
        do throws(JSONReadError) {
            _ = try tree(bytes)
            return nil
        } catch {
            return error.located(in: bytes)
        }
    }
}
