import Foundation

extension StrictJSON {
    /// Why a file could not be read strictly, by the step that refused it; each reader words
    /// it as its own error (``Document``).
    public enum LoadError: Error {
        /// The text is not JSON: where it goes wrong (`line 1, column 10: expected a value,
        /// found the end of the text`) when pagebench's reader can say, and the JSON parser's
        /// own error (the reader's, when only it refuses the text).
        case notJSON(located: String?, parser: any Error)
        /// Valid JSON with a key repeated in one object or a `null` where the format has none,
        /// described with its path.
        case problem(String)
        /// Valid JSON of the wrong shape for the reader: the decoding error and, when the
        /// path and value can be named, the words for it (``ShapeProblem``).
        case shape(DecodingError, ShapeProblem?)
        /// An error the reader's own decoding threw (a value it refuses), passed through.
        case reader(any Error)
    }

    /// A JSON file read strictly, once: every file pagebench reads (store configurations,
    /// scenarios, target files, thresholds, shards) goes through this one path.
    ///
    /// The steps, each with its own ``LoadError``: the text must be JSON (located as
    /// `line L, column C`); no key may repeat in an object and no value may be `null` outside
    /// `nullable`; the tree (numbers kept as written) then decodes any part of the file as a
    /// `Decodable` type, a value of the wrong shape named by its path and what the file has
    /// there; ``unknownKey(of:at:)`` names the first key the decoded value did not read.
    /// Sections of one file (a scenario's `store` and `workload`) decode from the same tree:
    /// nothing is serialised and parsed again.
    public struct Document {
        /// The file's bytes.
        public let bytes: [UInt8]
        /// The tree, numbers as written, keys in file order.
        public let root: Node

        /// Reads `bytes` as JSON, once (pagebench's one tokenizer, ``JSONReader``), and checks
        /// it for repeated keys and nulls.
        ///
        /// - Parameter nullable: paths where `null` is a value of the format (`phases[].drains`,
        ///   ``firstProblem(in:nullable:)``); nil when `null` is a value anywhere (a target
        ///   file's request body). A repeated key is refused either way.
        /// - Parameter checked: false to leave the check for repeated keys and nulls to a later
        ///   ``firstProblem(nullable:)`` (a shard file names a wrong format tag first).
        /// - Parameter finiteNumbers: false keeps a number beyond a `Double`'s range (`1e400`)
        ///   as written, for the file's fields to refuse by their own bounds (a target file);
        ///   true refuses it as the text's error, located.
        public init(
            bytes: [UInt8],
            nullable: Set<String>? = [],
            checked: Bool = true,
            finiteNumbers: Bool = true
        ) throws(LoadError) {
            self.bytes = bytes
            do {
                root = try StrictJSON.tree(bytes, finiteNumbers: finiteNumbers)
            } catch {
                throw .notJSON(located: error.located(in: bytes), parser: error)
            }
            if checked, let problem = firstProblem(nullable: nullable) { throw .problem(problem) }
        }

        /// The first key repeated in one object or `null` outside `nullable` (nil: nulls
        /// allowed anywhere), in file order, described with its path; nil when there is none.
        public func firstProblem(nullable: Set<String>?) -> String? {
            Self.firstProblem(in: root, path: "", nullable: nullable)
        }

        /// The top-level value is an object.
        public var isObject: Bool {
            if case .object = root { return true }
            return false
        }

        /// The keys of the top-level object in file order (none when it is not an object).
        public var keys: [String] {
            guard case .object(let members) = root else { return [] }
            return members.map(\.key)
        }

        /// The value of top-level `key`, if the file is an object that has it.
        public subscript(key: String) -> Node? {
            root.member(key)
        }

        /// Decodes the whole file, or the value of its top-level `key`, as `type`.
        ///
        /// - Parameter prefix: the path the decoded value has in the file for error messages:
        ///   `workload` names `'workload.limit'`; empty names paths within the value.
        /// - Throws: ``LoadError/shape(_:_:)`` naming the path, or ``LoadError/reader(_:)``
        ///   with what `type`'s own decoding threw.
        public func decode<T: Decodable>(
            _ type: T.Type,
            at key: String? = nil,
            prefix: String = ""
        ) throws(LoadError) -> T {
            let node = key.map { root.member($0) ?? .object([]) } ?? root
            do {
                return try T(from: ShapeDecoder(node: node, codingPath: []))
            } catch let error as DecodingError {
                throw .shape(error, StrictJSON.explain(error, root: node, prefix: prefix))
            } catch {
                throw .reader(error)
            }
        }

        /// The first key of the file (or of its top-level `key`'s value), at any depth, that
        /// `value` does not give back when encoded: a key its reader skipped, almost always a
        /// typo. Described with its path (`serviceTime.bse`) and the keys that level has.
        public func unknownKey(of value: some Encodable, at key: String? = nil) -> String? {
            let node = key.map { root.member($0) ?? .object([]) } ?? root
            guard let encoded = try? JSONEncoder().encode(value),
                let known = try? StrictJSON.tree(Array(encoded), finiteNumbers: false)
            else { return nil }
            return StrictJSON.unknownKey(in: node, known: known, path: "")
        }

        /// The first duplicate key or disallowed null in document order
        /// (``StrictJSON/firstProblem(in:nullable:)`` for text).
        static func firstProblem(in node: Node, path: String, nullable: Set<String>?) -> String? {
            switch node {
            case .object(let members):
                var keys: Set<String> = []
                for (key, value) in members {
                    let keyPath = path.isEmpty ? key : path + "." + key
                    guard keys.insert(key).inserted else {
                        return "key '\(keyPath)' appears twice; keep one (JSON parsers would silently use the last)"
                    }
                    if let problem = firstProblem(in: value, path: keyPath, nullable: nullable) { return problem }
                }
                return nil
            case .array(let elements):
                for (index, element) in elements.enumerated() {
                    if let problem = firstProblem(in: element, path: "\(path)[\(index)]", nullable: nullable) {
                        return problem
                    }
                }
                return nil
            case .null:
                guard let nullable else { return nil }
                if !nullable.isEmpty, nullable.contains(StrictJSON.anyIndex(path)) { return nil }
                return "'\(path.isEmpty ? "(top level)" : path)' is null; give a value or leave the key out"
            case .string, .number, .bool:
                return nil
            }
        }
    }

    /// ``unknownKey(in:known:path:)`` for trees: keys compared as written in the file, `known`
    /// the decoded value encoded again.
    static func unknownKey(in given: Node, known: Node, path: String) -> String? {
        switch given {
        case .object(let members):
            guard case .object(let knownMembers) = known else { return nil }
            for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                let keyPath = path.isEmpty ? key : path + "." + key
                guard let knownValue = known.member(key) else {
                    return "unknown key \"\(keyPath)\"; known keys\(path.isEmpty ? "" : " of \(path)") are "
                        + Set(knownMembers.map(\.key)).sorted().joined(separator: ", ")
                }
                if let unknown = unknownKey(in: value, known: knownValue, path: keyPath) { return unknown }
            }
            return nil
        case .array(let elements):
            guard case .array(let knownArray) = known, elements.count == knownArray.count else { return nil }
            for (index, element) in elements.enumerated() {
                if let unknown = unknownKey(in: element, known: knownArray[index], path: "\(path)[\(index)]") {
                    return unknown
                }
            }
            return nil
        case .string, .number, .bool, .null:
            return nil
        }
    }
}
