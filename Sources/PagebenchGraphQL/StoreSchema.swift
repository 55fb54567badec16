import GraphQL
import PagebenchPage
import PagebenchServer
import PagebenchStore
import PagebenchWire

/// What every resolver gets: the server to page and the HTTP request it serves.
struct ResolverContext: Sendable {
    let server: StoreServer
    let request: StoreRequestContext
}

/// One page as `listItems` returns it (AppSync style).
struct ItemList: Sendable {
    let items: [Item]
    let nextToken: String?
    let scannedCount: Int
}

/// One page as `itemsConnection` returns it (Relay style).
struct ItemConnection: Sendable {
    let edges: [ItemEdge]
    let hasNextPage: Bool
    let hasPreviousPage: Bool
    let startCursor: String?
    let endCursor: String?
}

/// An edge: the item, and what is needed to make its cursor if it is asked for.
struct ItemEdge: Sendable {
    let item: Item
    /// The request of the page (its direction and limit bind the cursor, S18).
    let request: PageRequest
    let store: SyntheticStore

    /// A store token resuming after this item in the page's direction.
    var cursor: String? {
        try? store.token(for: request.with(token: nil), resumingAfter: item.partition, sortKey: item.sortKey)
    }
}

/// The GraphQL schema of the served store (W6): `listItems` (AppSync: items, nextToken,
/// scannedCount) and `itemsConnection` (Relay: edges, pageInfo) over the `Item` type, with
/// AppSync-style filter input objects. Every list field is one store request through
/// ``StoreServer/servePage(_:context:)``.
enum StoreSchema {
    static func field<Source: Sendable, Value: Sendable>(
        _ type: GraphQLOutputType,
        _ description: String,
        _ value: @escaping @Sendable (Source) -> Value?
    ) -> GraphQLField {
        let resolve: GraphQLFieldResolve = { source, _, _, _ in (source as? Source).flatMap(value) }
        return GraphQLField(type: type, description: description, resolve: resolve)
    }

    static func make() throws -> GraphQLSchema {
        let item = try GraphQLObjectType(
            name: "Item",
            description: "One item of the synthetic store.",
            fields: [
                "partition": field(GraphQLNonNull(GraphQLInt), "The partition key.") { (item: Item) in item.partition },
                "sortKey": field(
                    GraphQLNonNull(GraphQLString),
                    "The sort key within the partition, in decimal (sort keys exceed GraphQL's 32-bit Int)."
                ) { (item: Item) in
                    String(item.sortKey)
                },
                "sizeBytes": field(
                    GraphQLNonNull(GraphQLInt),
                    "The item's size in bytes; what the scan budget is charged (S3)."
                ) {
                    (item: Item) in item.sizeBytes
                },
                "category": field(
                    GraphQLNonNull(GraphQLInt),
                    "The filterable attribute: 0 for the configured selectivity."
                ) {
                    (item: Item) in item.storeAttributes.category
                },
                "fingerprint": field(GraphQLNonNull(GraphQLString), "A 64-bit fingerprint, 16 hex digits.") {
                    (item: Item) in
                    let hex = String(item.storeAttributes.fingerprint, radix: 16)
                    return String(repeating: "0", count: 16 - hex.count) + hex
                },
            ]
        )
        let list = try GraphQLObjectType(
            name: "ItemList",
            description: "One page, AppSync style.",
            fields: [
                "items": field(GraphQLNonNull(GraphQLList(GraphQLNonNull(item))), "The items that passed the filter.") {
                    (page: ItemList) in page.items
                },
                "nextToken": field(
                    GraphQLString,
                    "The store's token to continue with; null at the end (S5, S6). Empty pages still carry one (S3)."
                ) {
                    (page: ItemList) in page.nextToken
                },
                "scannedCount": field(
                    GraphQLNonNull(GraphQLInt),
                    "Items evaluated for this page, before the filter (S2)."
                ) {
                    (page: ItemList) in page.scannedCount
                },
            ]
        )
        let edge = try GraphQLObjectType(
            name: "ItemEdge",
            fields: [
                "cursor": field(GraphQLNonNull(GraphQLString), "Resumes after this edge (a store token).") {
                    (edge: ItemEdge) in
                    edge.cursor
                },
                "node": field(GraphQLNonNull(item), "The item.") { (edge: ItemEdge) in edge.item },
            ]
        )
        let pageInfo = try GraphQLObjectType(
            name: "PageInfo",
            fields: [
                "hasNextPage": field(GraphQLNonNull(GraphQLBoolean), "Paging forward: the store returned a token.") {
                    (page: ItemConnection) in page.hasNextPage
                },
                "hasPreviousPage": field(GraphQLNonNull(GraphQLBoolean), "Paging backward: the store returned a token.")
                {
                    (page: ItemConnection) in page.hasPreviousPage
                },
                "startCursor": field(
                    GraphQLString,
                    "Paging backward: the store's token, even when edges is empty; forward: the first edge's cursor."
                ) {
                    (page: ItemConnection) in page.startCursor
                },
                "endCursor": field(
                    GraphQLString,
                    "Paging forward: the store's token, even when edges is empty (the Connections spec ties it to the last edge, which would strand a client on an empty page); backward: the last edge's cursor."
                ) { (page: ItemConnection) in page.endCursor },
            ]
        )
        let connection = try GraphQLObjectType(
            name: "ItemConnection",
            description: "One page, Relay style.",
            fields: [
                "edges": field(GraphQLNonNull(GraphQLList(GraphQLNonNull(edge))), "The items, in ascending key order.")
                {
                    (page: ItemConnection) in page.edges
                },
                "pageInfo": field(GraphQLNonNull(pageInfo), "Where to continue.") { (page: ItemConnection) in page },
            ]
        )
        let intInput = try GraphQLInputObjectType(
            name: "ModelIntInput",
            description: "Conditions on an integer attribute, ANDed (AppSync's ModelIntInput).",
            fields: [
                "eq": InputObjectField(type: GraphQLInt), "ne": InputObjectField(type: GraphQLInt),
                "lt": InputObjectField(type: GraphQLInt), "le": InputObjectField(type: GraphQLInt),
                "gt": InputObjectField(type: GraphQLInt), "ge": InputObjectField(type: GraphQLInt),
                "between": InputObjectField(
                    type: GraphQLList(GraphQLNonNull(GraphQLInt)),
                    description: "[low, high], inclusive."
                ),
            ]
        )
        let filter = try GraphQLInputObjectType(
            name: "ItemFilterInput",
            description: "A filter applied after the budget is charged (S3); fields are ANDed.",
            fields: [:]
        )
        filter.fields = {
            [
                "category": InputObjectField(type: intInput),
                "sizeBytes": InputObjectField(type: intInput),
                "and": InputObjectField(type: GraphQLList(GraphQLNonNull(filter))),
                "or": InputObjectField(type: GraphQLList(GraphQLNonNull(filter))),
                "not": InputObjectField(type: filter),
            ]
        }
        let direction = try GraphQLEnumType(
            name: "ModelSortDirection",
            values: ["ASC": GraphQLEnumValue(value: .string("ASC")), "DESC": GraphQLEnumValue(value: .string("DESC"))]
        )
        let query = try GraphQLObjectType(
            name: "Query",
            fields: [
                "listItems": GraphQLField(
                    type: list,
                    description:
                        "One page of a partition (query), a parallel-scan segment, or the whole scan, AppSync style.",
                    args: [
                        "partition": GraphQLArgument(type: GraphQLInt, description: "Query this partition (S14)."),
                        "segment": GraphQLArgument(
                            type: GraphQLInt,
                            description: "Parallel-scan segment (S15), with totalSegments."
                        ),
                        "totalSegments": GraphQLArgument(type: GraphQLInt),
                        "filter": GraphQLArgument(type: filter),
                        "limit": GraphQLArgument(type: GraphQLInt, description: "Items to evaluate (S1, S2)."),
                        "nextToken": GraphQLArgument(type: GraphQLString),
                        "sortDirection": GraphQLArgument(type: direction, defaultValue: .string("ASC")),
                    ],
                    resolve: {
                        (
                            _: any Sendable,
                            arguments: Map,
                            context: any Sendable,
                            info: GraphQLResolveInfo
                        ) async throws -> (any Sendable)? in
                        try await listItems(arguments, context, fail: failure(info))
                    }
                ),
                "itemsConnection": GraphQLField(
                    type: connection,
                    description:
                        "One page of a partition (or the scan), Relay style: first/after page forward, last/before backward.",
                    args: [
                        "partition": GraphQLArgument(type: GraphQLInt),
                        "filter": GraphQLArgument(type: filter),
                        "first": GraphQLArgument(type: GraphQLInt),
                        "after": GraphQLArgument(type: GraphQLString),
                        "last": GraphQLArgument(type: GraphQLInt),
                        "before": GraphQLArgument(type: GraphQLString),
                    ],
                    resolve: {
                        (
                            _: any Sendable,
                            arguments: Map,
                            context: any Sendable,
                            info: GraphQLResolveInfo
                        ) async throws -> (any Sendable)? in
                        try await itemsConnection(arguments, context, fail: failure(info))
                    }
                ),
            ]
        )
        return try GraphQLSchema(query: query)
    }

    // MARK: Resolvers

    /// Makes a field's error from a message and an `extensions.code`.
    typealias Failure = @Sendable (_ message: String, _ code: String) -> any Error

    /// GraphQL errors at the field, with `extensions.code` (W6).
    static func failure(_ info: GraphQLResolveInfo) -> Failure {
        { message, code in
            GraphQLError(message: message, nodes: info.fieldASTs, path: info.path, extensions: ["code": .string(code)])
        }
    }

    /// Bad arguments get the REST endpoint's `invalidParameter` code.
    static let invalidParameter = "invalidParameter"

    static func filter(_ arguments: Map, fail: Failure) throws -> Filter? {
        do {
            return try FilterInput.filter(arguments["filter"])
        } catch {
            throw fail(error.message, invalidParameter)
        }
    }

    /// Pages the store through the server; a store error becomes the field's error.
    static func page(_ request: PageRequest, _ context: any Sendable, fail: Failure) async throws -> Page {
        guard let context = context as? ResolverContext else { throw fail("no store", "internalError") }
        switch await context.server.servePage(request, context: context.request) {
        case .page(let page): return page
        case .failed(let failure as StoreError): throw fail(failure.message, failure.code.rawValue)
        case .failed(let failure): throw fail("the store failed unexpectedly: \(failure)", "internalError")
        case .abandoned: throw fail("the client closed the connection", "internalError")
        }
    }

    static func listItems(_ arguments: Map, _ context: any Sendable, fail: Failure) async throws -> ItemList {
        var request = PageRequest()
        let partition = arguments["partition"].int
        let segment = arguments["segment"].int
        let total = arguments["totalSegments"].int
        switch (partition, segment, total) {
        case (let partition?, nil, nil): request.range = .partition(partition)
        case (nil, let segment?, let total?): request.range = .segment(index: segment, total: total)
        case (nil, nil, nil): request.range = .scan
        case (_?, _, _): throw fail("partition cannot be combined with segment/totalSegments", invalidParameter)
        default: throw fail("segment and totalSegments go together (S15)", invalidParameter)
        }
        request.filter = try filter(arguments, fail: fail)
        request.limit = arguments["limit"].int
        request.token = arguments["nextToken"].string
        request.reverse = arguments["sortDirection"].string == "DESC"
        let page = try await page(request, context, fail: fail)
        return ItemList(items: page.items, nextToken: page.nextToken, scannedCount: page.scannedCount)
    }

    static func itemsConnection(_ arguments: Map, _ context: any Sendable, fail: Failure) async throws -> ItemConnection
    {
        let first = arguments["first"].int
        let last = arguments["last"].int
        let after = arguments["after"].string
        let before = arguments["before"].string
        if first != nil || after != nil, last != nil || before != nil {
            throw fail("page forward (first, after) or backward (last, before), not both", invalidParameter)
        }
        let backward = last != nil || before != nil
        var request = PageRequest(
            range: arguments["partition"].int.map(ScanRange.partition) ?? .scan,
            reverse: backward,
            limit: backward ? last : first,
            filter: try filter(arguments, fail: fail),
            token: backward ? before : after
        )
        if let limit = request.limit, limit < 1 {
            throw fail("first/last must be at least 1, got \(limit)", "invalidLimit")
        }
        let page = try await page(request, context, fail: fail)
        guard let store = (context as? ResolverContext)?.server.store else { throw fail("no store", "internalError") }
        request.token = nil
        var edges = page.items.map { ItemEdge(item: $0, request: request, store: store) }
        if backward {
            // Relay: edges in ascending order; the token continues backward from the start.
            edges.reverse()
            return ItemConnection(
                edges: edges,
                hasNextPage: false,
                hasPreviousPage: page.nextToken != nil,
                startCursor: page.nextToken,
                endCursor: edges.last?.cursor
            )
        }
        return ItemConnection(
            edges: edges,
            hasNextPage: page.nextToken != nil,
            hasPreviousPage: false,
            startCursor: edges.first?.cursor,
            endCursor: page.nextToken
        )
    }
}
