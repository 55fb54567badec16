import Foundation
import NIOCore
import PagebenchBase
import PagebenchHTTPClient
import PagebenchPage
import PagebenchWire
import Synchronization

/// A target file's kind as HTTP page requests (T1, T2): how a ``PageRequest`` becomes the
/// `http`, `graphql` or `dynamodb` request (templates filled, continuation placed, SigV4
/// signed) and how an answer becomes a ``Page`` or the ``TargetError`` it is. The steps
/// every API shares (sending, throttling and `Retry-After`, P9) are
/// ``PagebenchHTTPClient/HTTPPageExchange``'s; ``TargetSource`` adds the masking and the
/// counts by kind.
///
/// A page's items are counted, not decoded: each becomes an ``Item`` of its drain's
/// partition, sort key = its index in the page, `sizeBytes` = its JSON length, and no
/// attributes (nothing is invented: no category, no fingerprint). A page's `scannedBytes` is
/// the bytes of the response's body (rows show them as `response_bytes`: an API does not
/// say what it evaluated). `scannedCount` is the API's own count when the target names one
/// (DynamoDB's `ScannedCount`), else the items (rows then leave `scanned_items` empty).
struct TargetPageCodec: HTTPPageCodec {
    let target: Target
    /// The target's headers with `${VAR}` filled from the environment (never printed).
    let headers: [(name: String, value: String)]
    let signer: SigV4Signer?
    /// Hides the secrets those headers and the AWS credentials hold (T4) in the excerpts of
    /// bodies that messages quote (``TargetSource`` masks every whole message again).
    let mask: SecretMask
    /// The endpoint's `host:port`, for the signed `Host` header.
    let authority: String
    /// The endpoint's path (`""` or `/v1`), which SigV4 signs.
    let pathPrefix: String
    /// The endpoint without a trailing slash, for messages.
    let baseURL: String
    /// DynamoDB's consumed capacity, summed as responses report it (W4).
    let capacity = ConsumedCapacity()

    /// DynamoDB's `__type`s that mean "slow down" (T3), with HTTP 400.
    static let throttlingTypes = [
        "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded",
    ]

    func outgoing(for request: PageRequest) -> HTTPRequestClient.Request { makeRequest(request) }

    func describe(_ outgoing: HTTPRequestClient.Request) -> String {
        outgoing.method + " " + baseURL + outgoing.pathAndQuery
    }

    func page(from body: ByteBuffer, for request: PageRequest, sent outgoing: HTTPRequestClient.Request) throws -> Page
    {
        try readPage(body, request: request, described: describe(outgoing))
    }

    /// A DynamoDB throttling type with 400 is a retryable ``PageError/Kind/throttled`` (T3);
    /// 401 and 403 are ``TargetError/Kind/unauthorized``, a DynamoDB `__type` otherwise
    /// ``TargetError/Kind/apiError``, any other status ``TargetError/Kind/httpStatus`` (T2).
    /// (429 and 503 are throttling whatever this says: the exchange's rule.)
    func failure(status: Int, body: ByteBuffer, sent outgoing: HTTPRequestClient.Request) -> any Error {
        let described = describe(outgoing)
        var type: String?
        if case .dynamodb = target.request { type = Self.dynamoDBErrorType(body) }
        if status == 400, let type, Self.throttlingTypes.contains(where: { type.hasSuffix($0) }) {
            return PageError(.throttled, "\(described) throttled (\(type))", status: 400)
        }
        switch status {
        case 401, 403:
            return TargetError(
                .unauthorized,
                "\(described) answered HTTP \(status): the target refused the credentials; check the headers' variables (or AWS_* for dynamodb); body starts: \(mask.excerpt(body.readableBytesView))",
                status: status
            )
        default:
            if let type {
                return TargetError(
                    .apiError,
                    "\(described) answered HTTP \(status) \(type): \(mask.excerpt(body.readableBytesView))",
                    status: status
                )
            }
            return TargetError(
                .httpStatus,
                "\(described) answered HTTP \(status); body starts: \(mask.excerpt(body.readableBytesView))",
                status: status
            )
        }
    }

    func repeatedContinuation(sent outgoing: HTTPRequestClient.Request) -> any Error {
        TargetError(
            .repeatedContinuation,
            "\(describe(outgoing)) returned the continuation it was sent; following it would loop forever (P9)",
            status: 200
        )
    }

    // MARK: Requests

    func bindings(_ request: PageRequest) -> TemplateBindings {
        var bindings = TemplateBindings()
        if case .partition(let index) = request.range, let values = target.partitions {
            let value = values[index % values.count]
            if case .dynamodb = target.request, case .number(let text) = value {
                bindings.partition = .string(text)  // DynamoDB's wire form carries N as a string
            } else {
                bindings.partition = value
            }
        }
        if case .segment(let index, let total) = request.range {
            bindings.segment = index
            bindings.totalSegments = total
        }
        bindings.limit = request.limit
        bindings.continuation = request.token
        bindings.filter = request.filter?.description
        if case .dynamodb = target.request, case .number(let text)? = target.filterValue {
            bindings.filterValue = .string(text)  // as the partition: DynamoDB's wire form carries N as a string
        } else {
            bindings.filterValue = target.filterValue
        }
        bindings.reverse = request.reverse
        return bindings
    }

    func makeRequest(_ request: PageRequest) -> HTTPRequestClient.Request {
        let bindings = bindings(request)
        switch target.request {
        case .http(let http):
            var path = http.path.render(bindings, encode: PercentEncoding.encoded)
            var headers = self.headers
            var body = http.body?.render(bindings)
            if let token = request.token {
                switch http.continuationIn {
                case .query(let name)?:
                    path +=
                        (path.contains("?") ? "&" : "?") + PercentEncoding.encoded(name) + "="
                        + PercentEncoding.encoded(token)
                case .header(let name)?:
                    headers.append((name, token))
                case .body(let pointer)?:
                    if let current = body { body = Self.setting(current, at: pointer.tokens[...], to: .string(token)) }
                case nil:
                    break
                }
            }
            var buffer: ByteBuffer?
            if let body {
                buffer = ByteBuffer(string: body.text)
                if !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
                    headers.append(("Content-Type", "application/json"))
                }
            }
            return .init(method: http.method, pathAndQuery: path, headers: headers, body: buffer)
        case .graphql(let graphql):
            var variables = graphql.variables.render(bindings).objectValue ?? [:]
            variables[graphql.continuationVariable] = request.token.map { .string($0) } ?? .null
            var document: [String: JSONValue] = ["query": .string(graphql.query), "variables": .object(variables)]
            if let name = graphql.operationName { document["operationName"] = .string(name) }
            var headers = self.headers
            if !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
                headers.append(("Content-Type", "application/json"))
            }
            return .init(
                method: "POST",
                pathAndQuery: "",
                headers: headers,
                body: ByteBuffer(string: JSONValue.object(document).text)
            )
        case .dynamodb(let dynamo):
            let body = dynamoDBBody(dynamo, request: request, bindings: bindings)
            var headers: [(name: String, value: String)] = [
                ("Host", authority), ("Content-Type", "application/x-amz-json-1.0"),
                ("X-Amz-Target", "DynamoDB_20120810." + dynamo.operation.rawValue),
            ]
            let bytes = Array(body.utf8)
            headers += signer!.signedHeaders(
                method: "POST",
                path: pathPrefix.isEmpty ? "/" : pathPrefix,
                headers: headers,
                payload: bytes,
                date: Date()
            )
            headers.removeFirst()  // the client writes Host itself
            return .init(method: "POST", pathAndQuery: "", headers: headers, body: ByteBuffer(bytes: bytes))
        }
    }

    private func dynamoDBBody(
        _ dynamo: Target.DynamoDBRequest,
        request: PageRequest,
        bindings: TemplateBindings
    ) -> String {
        var body: [String: JSONValue] = ["TableName": .string(dynamo.table)]
        if let limit = request.limit { body["Limit"] = .number(String(limit)) }
        if let value = dynamo.indexName { body["IndexName"] = .string(value) }
        if let value = dynamo.keyConditionExpression { body["KeyConditionExpression"] = .string(value) }
        if let value = dynamo.filterExpression { body["FilterExpression"] = .string(value) }
        if let value = dynamo.projectionExpression { body["ProjectionExpression"] = .string(value) }
        if let names = dynamo.expressionAttributeNames {
            body["ExpressionAttributeNames"] = .object(names.mapValues { .string($0) })
        }
        if let values = dynamo.expressionAttributeValues { body["ExpressionAttributeValues"] = values.render(bindings) }
        if let consistent = dynamo.consistentRead { body["ConsistentRead"] = .bool(consistent) }
        if dynamo.returnConsumedCapacity { body["ReturnConsumedCapacity"] = .string("TOTAL") }
        switch dynamo.operation {
        case .query:
            body["ScanIndexForward"] = .bool(dynamo.scanIndexForward ?? !request.reverse)
        case .scan:
            if case .segment(let index, let total) = request.range {
                body["Segment"] = .number(String(index))
                body["TotalSegments"] = .number(String(total))
            }
        }
        if let token = request.token { body["ExclusiveStartKey"] = .raw(token) }
        return JSONValue.object(body).text
    }

    /// `value` with the member at `path` set (objects created on the way).
    static func setting(_ value: JSONValue, at path: ArraySlice<String>, to newValue: JSONValue) -> JSONValue {
        guard let first = path.first else { return newValue }
        var members = value.objectValue ?? [:]
        members[first] = setting(members[first] ?? .object([:]), at: path.dropFirst(), to: newValue)
        return .object(members)
    }

    // MARK: Responses

    /// The `__type` of a DynamoDB error body (its first 200 characters: it goes into messages).
    static func dynamoDBErrorType(_ body: ByteBuffer) -> String? {
        body.withUnsafeReadableBytes { bytes in
            guard let range = try? JSONPointer.type.locate(in: bytes) else { return nil }
            var reader = JSONReader(UnsafeRawBufferPointer(rebasing: bytes[range]))
            return (try? reader.readString()).map { String($0.prefix(200)) }
        }
    }

    /// The page a 200 response's body stands for, or the ``TargetError`` it is (T1, T2).
    func readPage(_ body: ByteBuffer, request: PageRequest, described: String) throws(TargetError) -> Page {
        let partition: Int
        if case .partition(let index) = request.range { partition = index } else { partition = 0 }
        let kind = target.request
        return try body.withUnsafeReadableBytes { bytes throws(TargetError) -> Page in
            do {
                var whole = JSONReader(bytes)
                try whole.skipValue()
                try whole.expectEnd()
            } catch {
                throw TargetError(
                    .notJSON,
                    "\(described): the body is not JSON (\(error)); it starts: \(mask.excerpt(body.readableBytesView))",
                    status: 200
                )
            }
            // The document is valid JSON from here on: locating cannot fail.
            func locate(_ pointer: JSONPointer) -> Range<Int>? { (try? pointer.locate(in: bytes)) ?? nil }
            // nil: nested deeper than a JSONValue is parsed (the document is valid JSON, so
            // that is the only way this fails); never read as `null`.
            func value(_ range: Range<Int>) -> JSONValue? {
                try? JSONValue.parse(UnsafeRawBufferPointer(rebasing: bytes[range]))
            }
            func text(_ range: Range<Int>) -> String {
                String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            }
            let items: JSONPointer
            var scannedPointer: JSONPointer?
            switch kind {
            case .http(let http):
                items = http.items
                scannedPointer = http.scannedCount
            case .graphql(let graphql):
                items = graphql.items
                scannedPointer = graphql.scannedCount
                if let range = locate(.errors) {
                    let errors = value(range)
                    if errors != .null, errors != .array([]) {  // too deep to parse: errors all the same
                        throw TargetError(
                            .graphQLError,
                            "\(described) answered with GraphQL errors (T2): \(mask.excerpt(bytes[range], limit: 300))",
                            status: 200
                        )
                    }
                }
            case .dynamodb:
                items = .dynamoItems
                scannedPointer = .dynamoScannedCount
            }
            guard let itemsRange = locate(items) else {
                throw TargetError(
                    .missingItems,
                    "\(described): the response has nothing at the items pointer '\(items)'; it starts: \(mask.excerpt(body.readableBytesView))",
                    status: 200
                )
            }
            var sizes: [Int] = []
            do {
                var reader = JSONReader(UnsafeRawBufferPointer(rebasing: bytes[itemsRange]))
                guard reader.peek() == UInt8(ascii: "[") else { throw reader.error("not an array") }
                try reader.readArray { element throws(JSONReadError) in
                    _ = element.peek()
                    let start = element.offset
                    try element.skipValue()
                    sizes.append(element.offset - start)
                }
            } catch {
                throw TargetError(
                    .missingItems,
                    "\(described): the value at the items pointer '\(items)' is not an array: \(mask.excerpt(bytes[itemsRange], limit: 100))",
                    status: 200
                )
            }
            let continuation: String?
            switch kind {
            case .http(let http):
                continuation = try Self.token(at: http.continuation, locate(http.continuation), in: bytes, described)
            case .graphql(let graphql):
                if let pageInfo = graphql.pageInfo {
                    continuation = try Self.relayCursor(
                        locate(pageInfo).flatMap(value),
                        backward: graphql.backward,
                        pointer: pageInfo,
                        described
                    )
                } else {
                    let pointer = graphql.continuation!
                    continuation = try Self.token(at: pointer, locate(pointer), in: bytes, described)
                }
            case .dynamodb:
                if let range = locate(.lastEvaluatedKey) {
                    switch bytes[range.lowerBound] {
                    case UInt8(ascii: "{"): continuation = text(range)
                    case UInt8(ascii: "n"): continuation = nil
                    default:
                        throw TargetError(
                            .badContinuation,
                            "\(described): LastEvaluatedKey must be an object, got \(mask.excerpt(bytes[range], limit: 80))",
                            status: 200
                        )
                    }
                } else {
                    continuation = nil
                }
                // A page costs at most a few hundred units; anything outside [0, 10^6] (1e309
                // reads as infinity, which no Int holds) is not a capacity and is not summed.
                if let range = locate(.consumedCapacityUnits), case .number(let units) = value(range),
                    let parsed = Double(units),
                    (0...TargetSource.maximumCapacityUnitsPerResponse).contains(parsed)
                {
                    capacity.milliUnits.add(Int((parsed * 1000).rounded()), ordering: .relaxed)
                    capacity.responses.add(1, ordering: .relaxed)
                }
            }
            var scanned = sizes.count
            if let scannedPointer, let range = locate(scannedPointer), case .number(let count) = value(range),
                let number = Int(count)
            {
                scanned = max(number, sizes.count)
            }
            var pageItems: [Item] = []
            pageItems.reserveCapacity(sizes.count)
            for (index, size) in sizes.enumerated() {
                pageItems.append(Item(partition: partition, sortKey: UInt64(index), sizeBytes: size))
            }
            return Page(items: pageItems, scannedCount: scanned, scannedBytes: bytes.count, nextToken: continuation)
        }
    }

    /// A token continuation at `range` of the valid JSON `bytes`: absent, `null` or `""`
    /// ends the drain; a string continues it; anything else (however deep) is the wrong
    /// type (T2).
    private static func token(
        at pointer: JSONPointer,
        _ range: Range<Int>?,
        in bytes: UnsafeRawBufferPointer,
        _ described: String
    ) throws(TargetError) -> String? {
        guard let range else { return nil }
        var reader = JSONReader(UnsafeRawBufferPointer(rebasing: bytes[range]))
        if (try? reader.readNull()) == true { return nil }
        if reader.peek() == UInt8(ascii: "\""), let token = try? reader.readString() {
            return token.isEmpty ? nil : token
        }
        let kind: String
        switch bytes[range.lowerBound] {
        case UInt8(ascii: "{"): kind = "an object"
        case UInt8(ascii: "["): kind = "an array"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): kind = "true or false"
        default: kind = "a number"
        }
        throw TargetError(
            .badContinuation,
            "\(described): the continuation at '\(pointer)' must be a string or null, got \(kind)",
            status: 200
        )
    }

    /// A Relay `pageInfo`: `hasNextPage` + `endCursor` (or `hasPreviousPage` +
    /// `startCursor` backwards).
    private static func relayCursor(
        _ value: JSONValue?,
        backward: Bool,
        pointer: JSONPointer,
        _ described: String
    ) throws(TargetError) -> String? {
        let (flag, cursor) = backward ? ("hasPreviousPage", "startCursor") : ("hasNextPage", "endCursor")
        guard let info = value?.objectValue else {
            throw TargetError(.badContinuation, "\(described): no pageInfo object at '\(pointer)'", status: 200)
        }
        guard case .bool(let more)? = info[flag] else {
            throw TargetError(.badContinuation, "\(described): pageInfo.\(flag) must be true or false", status: 200)
        }
        guard more else { return nil }
        guard case .string(let text)? = info[cursor], !text.isEmpty else {
            throw TargetError(
                .badContinuation,
                "\(described): pageInfo.\(flag) is true but pageInfo.\(cursor) is not a cursor string",
                status: 200
            )
        }
        return text
    }
}

/// DynamoDB `ConsumedCapacity.CapacityUnits` summed over the responses that carried it (W4).
final class ConsumedCapacity: Sendable {
    let milliUnits = Atomic<Int>(0)
    let responses = Atomic<Int>(0)

    /// The sum in units, or nil when no response carried it.
    var units: Double? {
        responses.load(ordering: .relaxed) > 0 ? Double(milliUnits.load(ordering: .relaxed)) / 1000 : nil
    }
}

extension JSONPointer {
    // Pointers the kinds read; literal and valid, so the force-try cannot fail.
    static let errors = try! JSONPointer("/errors")
    static let type = try! JSONPointer("/__type")
    static let dynamoItems = try! JSONPointer("/Items")
    static let dynamoScannedCount = try! JSONPointer("/ScannedCount")
    static let lastEvaluatedKey = try! JSONPointer("/LastEvaluatedKey")
    static let consumedCapacityUnits = try! JSONPointer("/ConsumedCapacity/CapacityUnits")
}
