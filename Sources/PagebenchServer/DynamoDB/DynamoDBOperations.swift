import HTTPTypes
import HummingbirdCore
import NIOCore
import PagebenchPage
import PagebenchStore
import PagebenchWire

/// The operations of ``DynamoDBRoutes`` for one request.
struct DynamoDBOperations {
    let tableName: String
    let server: StoreServer
    let context: StoreRequestContext
    let conditions: ConditionCache

    enum ReadKind: String {
        case query = "Query"
        case scan = "Scan"
    }

    /// What `Select` asks for.
    enum Selection {
        case all
        case count
        case specific(Set<String>)
    }

    /// What `ReturnConsumedCapacity` asks for.
    enum CapacityReport: String {
        case none = "NONE"
        case total = "TOTAL"
        case indexes = "INDEXES"
    }

    // MARK: Query and Scan

    static let readParameters: Set<String> = [
        "TableName", "FilterExpression", "ExpressionAttributeNames", "ExpressionAttributeValues", "Limit",
        "ExclusiveStartKey", "ProjectionExpression", "Select", "ReturnConsumedCapacity", "ConsistentRead",
    ]
    static let unsupportedReadParameters: [String: String] = [
        "IndexName": "the table has no secondary indexes",
        "AttributesToGet": "use ProjectionExpression",
        "ConditionalOperator": "use FilterExpression with AND and OR",
    ]

    /// A Query or Scan page (W2–W4).
    func read(_ kind: ReadKind, _ body: JSONValue) async throws(DynamoDBError) -> Response {
        var known = Self.readParameters
        var unsupported = Self.unsupportedReadParameters
        switch kind {
        case .query:
            known.formUnion(["KeyConditionExpression", "ScanIndexForward"])
            unsupported["KeyConditions"] = "use KeyConditionExpression"
            unsupported["QueryFilter"] = "use FilterExpression"
        case .scan:
            known.formUnion(["Segment", "TotalSegments"])
            unsupported["ScanFilter"] = "use FilterExpression"
        }
        let input = try DynamoDBInput(operation: kind.rawValue, body: body, known: known, unsupported: unsupported)
        try input.table(served: tableName)
        var expressions = DynamoDBExpressions(
            names: try input.stringMap("ExpressionAttributeNames"),
            values: try input.attributeMap("ExpressionAttributeValues"),
            cache: conditions
        )

        var request = PageRequest(limit: PageRequest.maximumLimit)
        if let limit = try input.integer("Limit") {
            guard limit >= 1, limit <= PageRequest.maximumLimit else {
                throw .validation(
                    "1 validation error detected: Value '\(limit)' at 'limit' failed to satisfy constraint: Member must have value between 1 and \(PageRequest.maximumLimit)"
                )
            }
            request.limit = limit
        }
        switch kind {
        case .query:
            guard let condition = try input.string("KeyConditionExpression") else {
                throw .validation("Query needs a KeyConditionExpression (pk = :v)")
            }
            let (partition, sortKeys) = try expressions.keyCondition(condition)
            request.range = .partition(partition)
            request.sortKeys = sortKeys
            request.reverse = !(try input.bool("ScanIndexForward") ?? true)
        case .scan:
            let segment = try input.integer("Segment")
            let total = try input.integer("TotalSegments")
            switch (segment, total) {
            case (nil, nil): request.range = .scan
            case (let segment?, let total?):
                guard total >= 1, total <= 1_000_000 else {
                    throw .validation("TotalSegments must be between 1 and 1000000, got \(total)")
                }
                guard segment >= 0, segment < total else {
                    throw .validation(
                        "Segment must be at least 0 and less than TotalSegments (\(total)), got \(segment)"
                    )
                }
                request.range = .segment(index: segment, total: total)
            case (nil, _?): throw .validation("the Segment parameter is required when TotalSegments is present")
            case (_?, nil): throw .validation("the TotalSegments parameter is required when Segment is present")
            }
        }
        if let text = try input.string("FilterExpression") { request.filter = try expressions.filter(text) }
        let projection = try input.string("ProjectionExpression").map { (text: String) throws(DynamoDBError) in
            try expressions.projection(text)
        }
        try expressions.checkAllUsed()
        let selection = try Self.selection(try input.string("Select"), projection: projection)
        let capacity = try Self.capacityReport(input)
        let consistent = try input.bool("ConsistentRead") ?? false

        if let start = try input.attributeMap("ExclusiveStartKey") {
            let (partition, sortKey) = try Self.key(start, what: "The provided starting key is invalid")
            do {
                request.token = try server.store.token(for: request, resumingAfter: partition, sortKey: sortKey)
            } catch {
                throw .validation("The provided starting key is invalid: \(Self.message(of: error))")
            }
        } else if case .partition(let partition) = request.range, !server.store.hasPartition(partition) {
            // DynamoDB: a key with no items is an empty result, not an error.
            return try encode(
                page: Page(items: [], scannedCount: 0, scannedBytes: 0, nextToken: nil),
                selection,
                capacity,
                consistent
            )
        }

        let page = try await serve(request)
        return try encode(page: page, selection, capacity, consistent)
    }

    /// Pages the store and maps its errors to DynamoDB's (W5).
    func serve(_ request: PageRequest) async throws(DynamoDBError) -> Page {
        switch await server.servePage(request, context: context) {
        case .page(let page):
            return page
        case .failed(let error as StoreError):
            switch error.code {
            case .throttled:
                throw DynamoDBError(
                    .throughputExceeded,
                    "The level of configured provisioned throughput for the table was exceeded (pagebench --throttle-rate)"
                )
            case .injectedFault:
                throw DynamoDBError(.internalServerError, "Internal server error (pagebench --fault-rate)")
            default:
                throw .validation(error.message)
            }
        case .failed(let error):
            throw DynamoDBError(.internalServerError, "the store failed unexpectedly: \(error)")
        case .abandoned:
            throw DynamoDBError(.internalServerError, "the client closed the connection before the page was ready")
        }
    }

    static func selection(_ select: String?, projection: Set<String>?) throws(DynamoDBError) -> Selection {
        switch (select, projection) {
        case (nil, nil), ("ALL_ATTRIBUTES", nil): return .all
        case (nil, let names?), ("SPECIFIC_ATTRIBUTES", let names?): return .specific(names)
        case ("COUNT", nil): return .count
        case ("SPECIFIC_ATTRIBUTES", nil):
            throw .validation("Select SPECIFIC_ATTRIBUTES needs a ProjectionExpression")
        case ("ALL_ATTRIBUTES", _?), ("COUNT", _?):
            throw .validation("Cannot specify a ProjectionExpression with Select \(select ?? "")")
        case ("ALL_PROJECTED_ATTRIBUTES", _):
            throw .validation("Select ALL_PROJECTED_ATTRIBUTES needs an index; the table has none")
        default:
            throw .validation("Select must be ALL_ATTRIBUTES, SPECIFIC_ATTRIBUTES or COUNT, got '\(select ?? "")'")
        }
    }

    static func capacityReport(_ input: DynamoDBInput) throws(DynamoDBError) -> CapacityReport {
        guard let text = try input.string("ReturnConsumedCapacity") else { return .none }
        guard let report = CapacityReport(rawValue: text) else {
            throw .validation("ReturnConsumedCapacity must be NONE, TOTAL or INDEXES, got '\(text)'")
        }
        return report
    }

    /// A key map of exactly `pk` and `sk`, both numbers.
    static func key(_ map: [String: DynamoDBValue], what: String) throws(DynamoDBError) -> (Int, UInt64) {
        guard map.count == 2, let pk = map[DynamoDBAttributes.partitionKey], let sk = map[DynamoDBAttributes.sortKey]
        else {
            throw .validation("\(what): the provided key element does not match the schema (exactly pk and sk, both N)")
        }
        let partition = try pk.integer("\(what): pk")
        let sortKey = try sk.integer("\(what): sk")
        guard sortKey >= 0 else { throw .validation("\(what): sk \(sortKey) is not a key of this table") }
        return (partition, UInt64(sortKey))
    }

    static func message(of error: any Error) -> String {
        (error as? StoreError)?.message ?? "\(error)"
    }

    /// DynamoDB's read cost (W4): evaluated bytes rounded up to 4 KB, one unit per 4 KB
    /// strongly consistent, half that eventually consistent.
    static func capacityUnits(scannedBytes: Int, consistent: Bool) -> Double {
        let blocks = Double((scannedBytes + 4095) / 4096)
        return consistent ? blocks : blocks / 2
    }

    // MARK: Encoding

    /// The response of `json`, or a ValidationException naming the response-size bound (W7)
    /// when it is larger than the server sends.
    func response(_ json: JSONWriter) throws(DynamoDBError) -> Response {
        let limit = server.configuration.bounds.maximumResponseBytes
        guard json.buffer.readableBytes <= limit else {
            throw .validation(
                "the response would be \(json.buffer.readableBytes) bytes, more than this server sends (\(limit), serve --max-response-bytes); "
                    + "ask for fewer items with Limit or a ProjectionExpression"
            )
        }
        return Response(status: .ok, headers: DynamoDBRoutes.headers, body: .init(byteBuffer: json.buffer))
    }

    /// The page's `LastEvaluatedKey` (W3): the key its token resumes after, nil exactly when the
    /// page has no token.
    ///
    /// - Throws: ``DynamoDBError`` `InternalServerError` naming the cause when the store's token
    ///   cannot be read back as a key (a token the store cannot decode, or an offset
    ///   continuation, S24, which names a position). Leaving the key out instead would tell the
    ///   client that the range is exhausted and end its drain early, silently.
    static func lastEvaluatedKey(
        of page: Page,
        store: SyntheticStore
    ) throws(DynamoDBError) -> (partition: Int, sortKey: UInt64)? {
        guard let token = page.nextToken else { return nil }
        let contents: TokenContents
        do {
            contents = try store.decodeToken(token)
        } catch {
            throw DynamoDBError(
                .internalServerError,
                "the store's continuation token for this page could not be read back as a LastEvaluatedKey (\(message(of: error))); "
                    + "the page is not sent without one, which would end the drain early"
            )
        }
        if let offset = contents.offset {
            throw DynamoDBError(
                .internalServerError,
                "the store continues at position \(offset) (an offset continuation, S24), which is no key for a LastEvaluatedKey; "
                    + "serve the store with keyset continuation"
            )
        }
        return (contents.lastEvaluatedPartition, contents.lastEvaluatedSortKey)
    }

    func encode(
        page: Page,
        _ selection: Selection,
        _ capacity: CapacityReport,
        _ consistent: Bool
    ) throws(DynamoDBError) -> Response {
        let payloads = server.configuration.includePayloadByDefault
        var json = JSONWriter(
            capacity: 128 + page.items.count
                * (payloads ? 160 + page.scannedBytes / max(1, page.scannedCount) * 2 : 160)
        )
        json.raw("{")
        if case .count = selection {
        } else {
            json.raw("\"Items\":[")
            for (index, item) in page.items.enumerated() {
                if index > 0 { json.raw(",") }
                encode(item, selection: selection, payloads: payloads, into: &json)
            }
            json.raw("],")
        }
        json.raw("\"Count\":")
        json.integer(page.returnedCount)
        json.raw(",\"ScannedCount\":")
        json.integer(page.scannedCount)
        if let (partition, sortKey) = try Self.lastEvaluatedKey(of: page, store: server.store) {
            json.raw(",\"LastEvaluatedKey\":{\"pk\":{\"N\":\"")
            json.integer(partition)
            json.raw("\"},\"sk\":{\"N\":\"")
            json.unsigned(sortKey)
            json.raw("\"}}")
        }
        encodeCapacity(
            capacity,
            units: Self.capacityUnits(scannedBytes: page.scannedBytes, consistent: consistent),
            into: &json
        )
        json.raw("}")
        return try response(json)
    }

    func encodeCapacity(_ capacity: CapacityReport, units: Double, into json: inout JSONWriter) {
        guard capacity != .none else { return }
        json.raw(",\"ConsumedCapacity\":{\"TableName\":")
        json.string(tableName)
        json.raw(",\"CapacityUnits\":")
        json.buffer.writeString("\(units)")
        if capacity == .indexes {
            json.raw(",\"Table\":{\"CapacityUnits\":")
            json.buffer.writeString("\(units)")
            json.raw("}")
        }
        json.raw("}")
    }

    func encode(_ item: Item, selection: Selection, payloads: Bool, into json: inout JSONWriter) {
        var names: Set<String>?
        if case .specific(let projected) = selection { names = projected }
        DynamoDBItem.encode(item, attributes: names, payloads: payloads, into: &json)
    }

    // MARK: GetItem, DescribeTable, ListTables

    /// One item by its key: a one-item query of the store (its service time and failures
    /// included); `{}` when the key does not exist, as in DynamoDB.
    func getItem(_ body: JSONValue) async throws(DynamoDBError) -> Response {
        let input = try DynamoDBInput(
            operation: "GetItem",
            body: body,
            known: [
                "TableName", "Key", "ProjectionExpression", "ExpressionAttributeNames", "ConsistentRead",
                "ReturnConsumedCapacity",
            ],
            unsupported: ["AttributesToGet": "use ProjectionExpression"]
        )
        try input.table(served: tableName)
        guard let keyMap = try input.attributeMap("Key") else { throw .validation("GetItem needs a Key") }
        let (partition, sortKey) = try Self.key(keyMap, what: "Key")
        var expressions = DynamoDBExpressions(
            names: try input.stringMap("ExpressionAttributeNames"),
            values: nil,
            cache: conditions
        )
        let projection = try input.string("ProjectionExpression").map { (text: String) throws(DynamoDBError) in
            try expressions.projection(text)
        }
        try expressions.checkAllUsed()
        let capacity = try Self.capacityReport(input)
        let consistent = try input.bool("ConsistentRead") ?? false
        var item: Item?
        var bytes = 0
        if server.store.hasPartition(partition), sortKey < UInt64.max {
            let page = try await serve(
                PageRequest(range: .partition(partition), limit: 1, sortKeys: sortKey..<sortKey + 1)
            )
            item = page.items.first
            bytes = page.scannedBytes
        }
        var json = JSONWriter(capacity: 256)
        json.raw("{")
        if let item {
            json.raw("\"Item\":")
            encode(
                item,
                selection: projection.map(Selection.specific) ?? .all,
                payloads: server.configuration.includePayloadByDefault,
                into: &json
            )
        }
        if capacity != .none {
            // The leading comma of encodeCapacity, when there is no Item before it.
            var inner = JSONWriter(capacity: 96)
            encodeCapacity(
                capacity,
                units: Self.capacityUnits(scannedBytes: bytes, consistent: consistent),
                into: &inner
            )
            if item == nil { inner.buffer.moveReaderIndex(forwardBy: 1) }
            json.buffer.writeBuffer(&inner.buffer)
        }
        json.raw("}")
        return try response(json)
    }

    func describeTable(_ body: JSONValue) throws(DynamoDBError) -> Response {
        let input = try DynamoDBInput(operation: "DescribeTable", body: body, known: ["TableName"], unsupported: [:])
        try input.table(served: tableName)
        var json = JSONWriter(capacity: 512)
        json.raw("{\"Table\":{\"TableName\":")
        json.string(tableName)
        json.raw(",\"TableStatus\":\"ACTIVE\",\"TableArn\":")
        json.string("arn:aws:dynamodb:local:000000000000:table/\(tableName)")
        json.buffer.writeString(
            ",\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"},{\"AttributeName\":\"sk\",\"KeyType\":\"RANGE\"}],"
                + "\"AttributeDefinitions\":[{\"AttributeName\":\"pk\",\"AttributeType\":\"N\"},{\"AttributeName\":\"sk\",\"AttributeType\":\"N\"}],"
                + "\"BillingModeSummary\":{\"BillingMode\":\"PAY_PER_REQUEST\"},\"ItemCount\":"
        )
        json.integer(server.store.totalItems)
        json.raw("}}")
        return Response(status: .ok, headers: DynamoDBRoutes.headers, body: .init(byteBuffer: json.buffer))
    }

    func listTables(_ body: JSONValue) throws(DynamoDBError) -> Response {
        let input = try DynamoDBInput(
            operation: "ListTables",
            body: body,
            known: ["ExclusiveStartTableName", "Limit"],
            unsupported: [:]
        )
        if let limit = try input.integer("Limit"), limit < 1 || limit > 100 {
            throw .validation("Limit must be between 1 and 100, got \(limit)")
        }
        let after = try input.string("ExclusiveStartTableName")
        var json = JSONWriter(capacity: 64)
        json.raw("{\"TableNames\":[")
        if after.map({ $0 < tableName }) ?? true { json.string(tableName) }
        json.raw("]}")
        return Response(status: .ok, headers: DynamoDBRoutes.headers, body: .init(byteBuffer: json.buffer))
    }
}
