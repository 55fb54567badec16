import Foundation
import PagebenchBase
import PagebenchWire

extension Target {
    static let commonKeys = [
        "name", "description", "kind", "endpoint", "partitions", "headers", "timeoutSeconds", "maxResponseBytes",
        "itemKey", "filters",
        "tokensBind",
    ]
    static let kindKeys: [Kind: [String]] = [
        .http: ["method", "path", "body", "items", "continuation", "continuationIn", "scannedCount"],
        .graphql: [
            "query", "operationName", "variables", "shape", "continuationVariable", "items", "continuation", "pageInfo",
            "direction", "scannedCount",
        ],
        .dynamodb: [
            "region", "table", "operation", "indexName", "keyConditionExpression", "filterExpression",
            "projectionExpression", "expressionAttributeNames", "expressionAttributeValues", "scanIndexForward",
            "consistentRead", "returnConsumedCapacity",
        ],
    ]

    /// The largest target file read (a scenario's `target` section is part of its file).
    package static let maximumFileBytes = 16 << 20
    /// The largest `partitions.file` read.
    package static let maximumPartitionsFileBytes = 64 << 20
    /// The most partition values a target lists (`values`, `range` or `file`).
    package static let maximumPartitionValues = 10_000_000
    /// The bounds of `timeoutSeconds`.
    package static let timeoutSecondsRange = 0.001...3600.0
    /// The bounds of `maxResponseBytes`: a response body is held in one buffer.
    package static let maximumResponseBytesRange = 1...(1 << 30)

    /// Reads and validates a target file; its name defaults to the file name without `.json`.
    ///
    /// - Throws: ``TargetFileError`` naming the file and the field.
    package static func load(path: String) throws(TargetFileError) -> Target {
        let data: Data
        do {
            data = Data(try FileSystem.readBytes(path, maximumBytes: maximumFileBytes))
        } catch {
            switch error.kind {
            case .missing: throw TargetFileError("\(path): no such target file; check the path", missingFile: true)
            case .tooLarge: throw TargetFileError("\(path): \(tooLarge(maximumFileBytes, "a target file"))")
            default: throw TargetFileError("\(path): \(error.reason)", missingFile: true)
            }
        }
        let base = (path as NSString).lastPathComponent
        let name = base.hasSuffix(".json") ? String(base.dropLast(5)) : base
        do {
            return try load(json: data, defaultName: name, baseDirectory: (path as NSString).deletingLastPathComponent)
        } catch {
            throw TargetFileError("\(path): \(error.message)", missingFile: error.isMissingFile)
        }
    }

    /// Decodes and validates a target from JSON.
    ///
    /// - Parameter baseDirectory: where a relative `partitions.file` is looked up.
    package static func load(
        json data: Data,
        defaultName: String,
        baseDirectory: String = "."
    ) throws(TargetFileError) -> Target {
        let document: StrictJSON.Document
        do {
            // Nulls are values here (a request body may hold one); a repeated key is refused. A
            // number beyond a Double's range (1e400) is kept as written, as the wire reader
            // keeps it: a field's bounds check names it (`timeoutSeconds: must be between …,
            // got 1e400`), a request body sends it as given.
            document = try StrictJSON.Document(bytes: Array(data), nullable: nil, finiteNumbers: false)
        } catch {
            switch error {
            case .notJSON(let located, let parser):
                throw TargetFileError("the file is not valid JSON" + (located.map { ": " + $0 } ?? " (\(parser))"))
            case .problem(let problem): throw TargetFileError(problem)
            case .shape(let error, _): throw TargetFileError("\(error)")
            case .reader(let error): throw TargetFileError("\(error)")
            }
        }
        guard let value = JSONValue(document.root, depth: 0) else {
            throw TargetFileError(
                "the file is not valid JSON (objects and arrays nest deeper than \(JSONValue.maximumDepth) levels)"
            )
        }
        return try load(value, defaultName: defaultName, baseDirectory: baseDirectory)
    }

    /// Validates a parsed target (a target file, or a scenario's `target` section).
    package static func load(
        _ document: JSONValue,
        defaultName: String,
        baseDirectory: String = "."
    ) throws(TargetFileError) -> Target {
        guard let object = document.objectValue else {
            throw TargetFileError(
                "a target must be a JSON object like {\"kind\": \"http\", \"endpoint\": \"http://127.0.0.1:8080\", …}"
            )
        }
        var fields = Fields(object)
        guard let kindText = try fields.string("kind") else {
            throw TargetFileError("kind: missing; give one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let kind = Kind(rawValue: kindText) else {
            throw TargetFileError(
                "kind: '\(kindText)' is not a kind; give one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        let known = commonKeys + kindKeys[kind]!
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw TargetFileError(
                "\(unknown): unknown key for kind \(kind.rawValue); known keys are \(known.joined(separator: ", "))"
            )
        }
        let name = try fields.string("name") ?? defaultName
        _ = try fields.string("description")
        guard let endpoint = try fields.string("endpoint") else {
            throw TargetFileError("endpoint: missing; give the API's URL, e.g. https://api.example.com")
        }
        guard endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://"), URL(string: endpoint)?.host != nil else {
            throw TargetFileError("endpoint: '\(endpoint)' is not an http:// or https:// URL with a host")
        }
        guard URL(string: endpoint)?.query == nil else {
            throw TargetFileError("endpoint: '\(endpoint)' must not have a query; put it in the path template")
        }
        let partitions = try object["partitions"].map { value throws(TargetFileError) in
            try partitionValues(value, baseDirectory: baseDirectory)
        }
        var headers: [(name: String, value: TextTemplate)] = []
        if let headerValue = object["headers"] {
            guard kind != .dynamodb else {
                throw TargetFileError(
                    "headers: the dynamodb kind sends its own signed headers; credentials come from AWS_* variables"
                )
            }
            guard let members = headerValue.objectValue else {
                throw TargetFileError("headers: must be an object of header names to values")
            }
            for key in members.keys.sorted() {
                guard !key.isEmpty, key.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }) else {
                    throw TargetFileError("headers: '\(key)' is not a header name")
                }
                guard !["host", "content-length", "transfer-encoding", "connection"].contains(key.lowercased()) else {
                    throw TargetFileError("headers.\(key): set by the client; leave it out")
                }
                guard let text = members[key]!.stringValue, !text.contains("\r"), !text.contains("\n") else {
                    throw TargetFileError("headers.\(key): must be a one-line string")
                }
                do {
                    headers.append((key, try TextTemplate(text, environment: true)))
                } catch {
                    throw error.in("headers.\(key)")
                }
            }
        }
        let timeout = try fields.number("timeoutSeconds", in: timeoutSecondsRange) ?? 30
        let maximumBytes = try fields.integer("maxResponseBytes", in: maximumResponseBytesRange) ?? 64 << 20
        let itemKey = try fields.pointer("itemKey")

        let request: Request
        switch kind {
        case .http: request = .http(try httpRequest(&fields, object))
        case .graphql: request = .graphql(try graphQLRequest(&fields, object))
        case .dynamodb: request = .dynamodb(try dynamoDBRequest(&fields, object))
        }
        var hashed = object
        if let headerValue = object["headers"]?.objectValue {
            // Header values may be secrets (a literal token): only their names identify the target.
            hashed["headers"] = .array(headerValue.keys.sorted().map { .string($0) })
        }
        hashed["name"] = nil
        hashed["description"] = nil
        hashed["itemKey"] = nil  // read from answers, never sent
        hashed["filters"] = nil  // sent by verify and pages only; run sends its workload's filter
        hashed["tokensBind"] = nil
        let digest = SHA256Digest.hash(Array(JSONValue.object(hashed).text.utf8))
        let targetHash = digest.prefix(8).map { String(format: "%02x", $0) }.joined()
        var target = Target(
            name: name,
            kind: kind,
            endpoint: endpoint,
            partitions: partitions,
            headers: headers,
            timeoutSeconds: timeout,
            maximumResponseBytes: maximumBytes,
            request: request,
            itemKey: itemKey,
            targetHash: targetHash
        )
        try target.readVerifyKeys(object)
        return target
    }

    /// The most values `filters` lists.
    package static let maximumFilterValues = 100

    /// `filters` and `tokensBind`: what `verify` sends through `${filter}` and what it expects
    /// the API to bind a token to (docs/file-formats.md).
    private mutating func readVerifyKeys(_ object: [String: JSONValue]) throws(TargetFileError) {
        if let value = object["filters"] {
            guard case .array(let values) = value, !values.isEmpty, values.count <= Self.maximumFilterValues else {
                throw TargetFileError(
                    "filters: must be a list of 1 to \(Self.maximumFilterValues) values ${filter} takes, e.g. [\"open\", \"closed\"]"
                )
            }
            for member in values {
                switch member {
                case .string, .number, .bool: continue
                default: throw TargetFileError("filters: \(member.text) is not a string, number or boolean")
                }
            }
            guard Set(values.map(\.text)).count == values.count else {
                throw TargetFileError("filters: a value is listed twice")
            }
            guard placeholders.contains(.filter) else {
                throw TargetFileError(
                    "filters: no request template sends ${filter}; put it where the API takes its filter, e.g. \"path\": \"/items?status=${filter}\""
                )
            }
            filters = values
        }
        if let value = object["tokensBind"] {
            let known = TokenBinding.allCases.map(\.rawValue).joined(separator: ", ")
            guard case .array(let values) = value else {
                throw TargetFileError("tokensBind: must be a list of what the API binds a token to, of \(known)")
            }
            for member in values {
                guard let text = member.stringValue, let binding = TokenBinding(rawValue: text) else {
                    throw TargetFileError("tokensBind: \(member.text) is not one of \(known)")
                }
                tokensBind.insert(binding)
            }
            if tokensBind.contains(.limit), !placeholders.contains(.limit) {
                throw TargetFileError("tokensBind: limit, but no request template sends ${limit}")
            }
            if tokensBind.contains(.filter), (filters?.count ?? 0) < 2 {
                throw TargetFileError(
                    "tokensBind: filter needs two filters values at least (the token of one is sent with another)"
                )
            }
        }
    }

    // MARK: Kinds

    private static func httpRequest(
        _ fields: inout Fields,
        _ object: [String: JSONValue]
    ) throws(TargetFileError) -> HTTPRequest {
        let method = try fields.string("method") ?? "GET"
        guard !method.isEmpty, method.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw TargetFileError("method: '\(method)' is not an HTTP method such as GET or POST")
        }
        guard let pathText = try fields.string("path") else {
            throw TargetFileError(
                "path: missing; give the path and query after the endpoint, e.g. /items?limit=${limit}"
            )
        }
        guard pathText.hasPrefix("/") else { throw TargetFileError("path: '\(pathText)' must start with '/'") }
        let path: TextTemplate
        do { path = try TextTemplate(pathText, environment: false) } catch { throw error.in("path") }
        let body: JSONTemplate?
        do { body = try object["body"].map { value throws(TargetFileError) in try JSONTemplate(value) } } catch {
            throw error.in("body")
        }
        let items = try fields.requiredPointer("items", example: "/items")
        let continuation = try fields.requiredPointer("continuation", example: "/nextToken")
        let scanned = try fields.pointer("scannedCount")
        var placement: ContinuationPlacement?
        if let value = object["continuationIn"] {
            guard let members = value.objectValue, members.count == 1, let (where_, target) = members.first,
                let name = target.stringValue, !name.isEmpty
            else {
                throw TargetFileError(
                    "continuationIn: must be one of {\"query\": \"NAME\"}, {\"body\": \"/POINTER\"}, {\"header\": \"NAME\"}"
                )
            }
            switch where_ {
            case "query": placement = .query(name)
            case "header": placement = .header(name)
            case "body":
                guard body != nil else { throw TargetFileError("continuationIn.body: the target has no body template") }
                do { placement = .body(try JSONPointer(name)) } catch {
                    throw TargetFileError("continuationIn.body: \(error)")
                }
            default:
                throw TargetFileError("continuationIn: '\(where_)' is not a place; give query, body or header")
            }
        }
        let usesPlaceholder =
            path.placeholders.contains(.continuation) || (body?.placeholders.contains(.continuation) ?? false)
        guard placement != nil || usesPlaceholder else {
            throw TargetFileError(
                "continuationIn: missing; say where the continuation goes ({\"query\": \"nextToken\"}) or put ${continuation} in path or body"
            )
        }
        return HTTPRequest(
            method: method,
            path: path,
            body: body,
            items: items,
            continuation: continuation,
            continuationIn: placement,
            scannedCount: scanned
        )
    }

    private static func graphQLRequest(
        _ fields: inout Fields,
        _ object: [String: JSONValue]
    ) throws(TargetFileError) -> GraphQLRequest {
        guard let query = try fields.string("query"), !query.isEmpty else {
            throw TargetFileError("query: missing; give the GraphQL document with the list field")
        }
        let operationName = try fields.string("operationName")
        let variablesValue = object["variables"] ?? .object([:])
        guard variablesValue.objectValue != nil else { throw TargetFileError("variables: must be an object") }
        let variables: JSONTemplate
        do { variables = try JSONTemplate(variablesValue) } catch { throw error.in("variables") }
        let shapeText = try fields.string("shape") ?? "appsync"
        guard let shape = GraphQLRequest.Shape(rawValue: shapeText) else {
            throw TargetFileError("shape: '\(shapeText)' is not a shape; give appsync or relay")
        }
        let directionText = try fields.string("direction") ?? "forward"
        guard directionText == "forward" || directionText == "backward" else {
            throw TargetFileError("direction: '\(directionText)' must be forward or backward")
        }
        guard shape == .relay || directionText == "forward" else {
            throw TargetFileError("direction: backward applies to the relay shape only")
        }
        let backward = directionText == "backward"
        let continuationVariable =
            try fields.string("continuationVariable")
            ?? (shape == .appsync ? "nextToken" : backward ? "before" : "after")
        guard variablesValue.objectValue?[continuationVariable] == nil else {
            throw TargetFileError(
                "variables.\(continuationVariable): set by pagebench (it is the continuationVariable); leave it out"
            )
        }
        let items = try fields.requiredPointer(
            "items",
            example: shape == .appsync ? "/data/listItems/items" : "/data/itemsConnection/edges"
        )
        var continuation: JSONPointer?
        var pageInfo: JSONPointer?
        switch shape {
        case .appsync:
            continuation = try fields.requiredPointer("continuation", example: "/data/listItems/nextToken")
            guard object["pageInfo"] == nil else {
                throw TargetFileError("pageInfo: applies to the relay shape; use continuation")
            }
        case .relay:
            pageInfo = try fields.requiredPointer("pageInfo", example: "/data/itemsConnection/pageInfo")
            guard object["continuation"] == nil else {
                throw TargetFileError("continuation: applies to the appsync shape; use pageInfo")
            }
        }
        return GraphQLRequest(
            query: query,
            operationName: operationName,
            variables: variables,
            shape: shape,
            continuationVariable: continuationVariable,
            items: items,
            continuation: continuation,
            pageInfo: pageInfo,
            backward: backward,
            scannedCount: try fields.pointer("scannedCount")
        )
    }

    private static func dynamoDBRequest(
        _ fields: inout Fields,
        _ object: [String: JSONValue]
    ) throws(TargetFileError) -> DynamoDBRequest {
        guard let region = try fields.string("region"), !region.isEmpty,
            region.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") })
        else {
            throw TargetFileError("region: missing or not a region name such as us-east-1")
        }
        guard let table = try fields.string("table"), !table.isEmpty else { throw TargetFileError("table: missing") }
        let operationText = try fields.string("operation") ?? "Query"
        guard let operation = DynamoDBRequest.Operation(rawValue: operationText) else {
            throw TargetFileError("operation: '\(operationText)' must be Query or Scan")
        }
        let keyCondition = try fields.string("keyConditionExpression")
        if operation == .query, keyCondition == nil {
            throw TargetFileError("keyConditionExpression: a Query needs one, e.g. \"pk = :pk\"")
        }
        if operation == .scan, keyCondition != nil {
            throw TargetFileError("keyConditionExpression: a Scan takes none; use filterExpression")
        }
        var names: [String: String]?
        if let value = object["expressionAttributeNames"] {
            guard let members = value.objectValue, members.values.allSatisfy({ $0.stringValue != nil }) else {
                throw TargetFileError("expressionAttributeNames: must be an object of \"#name\": \"attribute\" strings")
            }
            names = members.mapValues { $0.stringValue! }
        }
        var values: JSONTemplate?
        if let value = object["expressionAttributeValues"] {
            guard let members = value.objectValue,
                members.values.allSatisfy({ ($0.objectValue?.count ?? 0) == 1 })
            else {
                throw TargetFileError(
                    "expressionAttributeValues: must be an object of \":name\": {\"S\": \"…\"} attribute values"
                )
            }
            do { values = try JSONTemplate(value) } catch { throw error.in("expressionAttributeValues") }
        }
        if operation == .scan, let values, values.placeholders.contains(.partition) {
            throw TargetFileError(
                "expressionAttributeValues: ${partition} needs a Query (a Scan reads every partition)"
            )
        }
        return DynamoDBRequest(
            region: region,
            table: table,
            operation: operation,
            indexName: try fields.string("indexName"),
            keyConditionExpression: keyCondition,
            filterExpression: try fields.string("filterExpression"),
            projectionExpression: try fields.string("projectionExpression"),
            expressionAttributeNames: names,
            expressionAttributeValues: values,
            scanIndexForward: try fields.bool("scanIndexForward"),
            consistentRead: try fields.bool("consistentRead"),
            returnConsumedCapacity: try fields.bool("returnConsumedCapacity") ?? true
        )
    }

    // MARK: Partitions

    /// `{"values": [...]}`, `{"range": [FIRST, LAST]}` (whole numbers, inclusive) or
    /// `{"file": "PATH"}` (one value per line, as strings; blank lines skipped).
    static func partitionValues(_ value: JSONValue, baseDirectory: String) throws(TargetFileError) -> [JSONValue] {
        let usage = "partitions: must be {\"values\": [...]}, {\"range\": [FIRST, LAST]} or {\"file\": \"keys.txt\"}"
        guard let members = value.objectValue, members.count == 1, let (key, spec) = members.first else {
            throw TargetFileError(usage)
        }
        let values: [JSONValue]
        switch key {
        case "values":
            guard case .array(let elements) = spec,
                elements.allSatisfy({ if case .string = $0 { true } else if case .number = $0 { true } else { false } })
            else {
                throw TargetFileError("partitions.values: must be an array of strings or numbers")
            }
            guard elements.count <= maximumPartitionValues else {
                throw TargetFileError(
                    "partitions.values: lists more than \(maximumPartitionValues) values, the most a target may have"
                )
            }
            values = elements
        case "range":
            // Whole numbers of 64 bits; the count is computed without overflow (the whole
            // Int64 range trapped here).
            guard case .array(let bounds) = spec, bounds.count == 2, case .number(let a) = bounds[0],
                case .number(let b) = bounds[1],
                let first = Int64(a), let last = Int64(b), first <= last,
                case (let span, let overflow) = last.subtractingReportingOverflow(first), !overflow,
                span < maximumPartitionValues
            else {
                throw TargetFileError(
                    "partitions.range: must be [FIRST, LAST], whole numbers of 64 bits, FIRST ≤ LAST, at most \(maximumPartitionValues) values"
                )
            }
            values = (first...last).map { .number(String($0)) }
        case "file":
            guard let file = spec.stringValue, !file.isEmpty else {
                throw TargetFileError("partitions.file: must be a path")
            }
            let path = file.hasPrefix("/") ? file : (baseDirectory as NSString).appendingPathComponent(file)
            let text: String
            do {
                text = try FileSystem.readText(path, maximumBytes: maximumPartitionsFileBytes)
            } catch {
                let reason =
                    switch error.kind {
                    case .missing:
                        "no such file; check the path (a relative path is read from the target file's directory)"
                    case .tooLarge: tooLarge(maximumPartitionsFileBytes, "a partitions file")
                    default: error.reason
                    }
                throw TargetFileError(
                    "partitions.file: '\(path)': \(reason)",
                    missingFile: error.kind != .notUTF8 && error.kind != .tooLarge
                )
            }
            values = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }.map { .string($0) }
            guard values.count <= maximumPartitionValues else {
                throw TargetFileError(
                    "partitions.file: '\(path)' lists more than \(maximumPartitionValues) values, the most a target may have"
                )
            }
        default:
            throw TargetFileError(usage)
        }
        guard !values.isEmpty else { throw TargetFileError("partitions: no values") }
        if let (repeated, offset) = values.firstRepeated() {
            // Drains choose among the values: one listed twice would be chosen twice as often.
            let value: String
            switch repeated {
            case .number(let text): value = text
            default: value = repeated.stringValue.map { "'\($0)'" } ?? "a value"
            }
            throw TargetFileError(
                key == "file"
                    ? "partitions.file: lists \(value) twice; give each partition value once"
                    : "partitions.values: lists \(value) twice (again at index \(offset)); give each partition value once"
            )
        }
        return values
    }
}

extension Target {
    /// Why a file over its cap is refused: the cap in MiB and bytes.
    static func tooLarge(_ maximumBytes: Int, _ what: String) -> String {
        "larger than \(maximumBytes >> 20) MiB (\(maximumBytes) bytes), the most \(what) may hold; is it the right file?"
    }
}

/// Typed access to a target object's members; every mistyped or out-of-bounds value names
/// its key.
struct Fields {
    let object: [String: JSONValue]

    init(_ object: [String: JSONValue]) {
        self.object = object
    }

    func string(_ key: String) throws(TargetFileError) -> String? {
        guard let value = object[key] else { return nil }
        guard let string = value.stringValue else {
            throw TargetFileError("\(key): must be a string, got \(value.kindName)")
        }
        return string
    }

    func bool(_ key: String) throws(TargetFileError) -> Bool? {
        guard let value = object[key] else { return nil }
        guard case .bool(let bool) = value else {
            throw TargetFileError("\(key): must be true or false, got \(value.kindName)")
        }
        return bool
    }

    /// A number within `bounds` (a text too large for a Double reads as infinity: out of bounds).
    func number(_ key: String, in bounds: ClosedRange<Double>) throws(TargetFileError) -> Double? {
        guard let value = object[key] else { return nil }
        let message =
            "\(key): must be between \(NumberText.number(bounds.lowerBound)) and \(NumberText.number(bounds.upperBound))"
        guard case .number(let text) = value, let number = Double(text) else {
            throw TargetFileError("\(message), got \(value.kindName)")
        }
        guard bounds.contains(number) else { throw TargetFileError("\(message), got \(text)") }
        return number
    }

    /// A whole number within `bounds` (one beyond 64 bits is out of bounds, not mistyped).
    func integer(_ key: String, in bounds: ClosedRange<Int>) throws(TargetFileError) -> Int? {
        guard let value = object[key] else { return nil }
        let message = "\(key): must be a whole number between \(bounds.lowerBound) and \(bounds.upperBound)"
        guard case .number(let text) = value else { throw TargetFileError("\(message), got \(value.kindName)") }
        guard let number = Int(text), bounds.contains(number) else { throw TargetFileError("\(message), got \(text)") }
        return number
    }

    func pointer(_ key: String) throws(TargetFileError) -> JSONPointer? {
        guard let text = try string(key) else { return nil }
        do { return try JSONPointer(text) } catch { throw TargetFileError("\(key): \(error)") }
    }

    func requiredPointer(_ key: String, example: String) throws(TargetFileError) -> JSONPointer {
        guard let pointer = try pointer(key) else {
            throw TargetFileError("\(key): missing; give a JSON Pointer (RFC 6901) into the response, e.g. \(example)")
        }
        return pointer
    }
}

extension JSONValue {
    /// The value of a strictly read tree (numbers as written); nil when containers nest deeper
    /// than ``JSONValue/maximumDepth``, as `JSONValue.parse` refuses them.
    init?(_ node: StrictJSON.Node, depth: Int) {
        switch node {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let text): self = .number(text)
        case .string(let text): self = .string(text)
        case .array(let elements):
            guard depth < JSONValue.maximumDepth else { return nil }
            var values: [JSONValue] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                guard let value = JSONValue(element, depth: depth + 1) else { return nil }
                values.append(value)
            }
            self = .array(values)
        case .object(let members):
            guard depth < JSONValue.maximumDepth else { return nil }
            var values: [String: JSONValue] = [:]
            for (key, member) in members {
                guard let value = JSONValue(member, depth: depth + 1) else { return nil }
                values[key] = value
            }
            self = .object(values)
        }
    }
}
