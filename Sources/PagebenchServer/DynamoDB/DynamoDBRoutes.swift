import HTTPTypes
import HummingbirdCore
import NIOCore
import PagebenchBase
import PagebenchWire

/// The served store as one DynamoDB table over DynamoDB's JSON 1.0 protocol (W1–W5):
/// `POST /` with `X-Amz-Target: DynamoDB_20120810.Query | Scan | GetItem | DescribeTable |
/// ListTables`, on the same server and port as the REST endpoints.
///
/// Every Query, Scan and GetItem is one ``PageRequest`` paged through
/// ``StoreServer/servePage(_:context:)``, so its page is the store's page (service time,
/// throttling, faults and statistics included); this type only translates. A SigV4
/// `Authorization` header is accepted whatever its signature, as local DynamoDB emulators
/// do (W5).
package struct DynamoDBRoutes: StoreRouteRegistration {
    /// The table's name (`serve --table`).
    package let tableName: String
    /// Parsed key conditions and filters by their text.
    let conditions = ConditionCache()

    package init(tableName: String = "pagebench") {
        self.tableName = tableName
    }

    static let headers: HTTPFields = [.contentType: "application/x-amz-json-1.0"]
    static let targetPrefix = "DynamoDB_20120810."
    static let targetHeader = HTTPField.Name("X-Amz-Target")!

    package func register(on router: inout StoreRouter, server: StoreServer) {
        router.post("/") { request, context in
            await respond(to: request, context: context, server: server)
        }
    }

    func respond(to request: Request, context: StoreRequestContext, server: StoreServer) async -> Response {
        do {
            let target = request.headers[Self.targetHeader] ?? ""
            guard target.hasPrefix(Self.targetPrefix) else {
                throw DynamoDBError(
                    .unknownOperation,
                    target.isEmpty
                        ? "POST / needs an X-Amz-Target header naming a DynamoDB_20120810 operation"
                        : "unknown operation '\(target)'; supported: DynamoDB_20120810.Query, Scan, GetItem, DescribeTable, ListTables"
                )
            }
            let operation = target.dropFirst(Self.targetPrefix.count)
            let bounds = server.configuration.bounds
            var bodyBuffer: ByteBuffer
            do {
                bodyBuffer = try await request.body.collect(upTo: bounds.maximumBodyBytes)
            } catch {
                throw DynamoDBError.validation(
                    "the request body exceeds \(bounds.maximumBodyBytes) bytes (serve --max-body-bytes)"
                )
            }
            let budget = RequestCPUBudget(limit: bounds.maximumCPUTime)
            let body: JSONValue
            do {
                body = try budget.charge("reading the request") { _ throws(JSONReadError) in
                    try bodyBuffer.withUnsafeReadableBytes { bytes throws(JSONReadError) in try JSONValue.parse(bytes) }
                }
            } catch {
                throw DynamoDBError.validation("the request body is not valid JSON: \(error)")
            }
            if budget.isExhausted { throw DynamoDBError.validation(budget.exhaustedMessage(in: "reading the request")) }
            bodyBuffer.clear()
            let operations = DynamoDBOperations(
                tableName: tableName,
                server: server,
                context: context,
                conditions: conditions
            )
            switch operation {
            case "Query": return try await operations.read(.query, body)
            case "Scan": return try await operations.read(.scan, body)
            case "GetItem": return try await operations.getItem(body)
            case "DescribeTable": return try operations.describeTable(body)
            case "ListTables": return try operations.listTables(body)
            default:
                throw DynamoDBError(
                    .unknownOperation,
                    "operation '\(operation)' is not served; supported: Query, Scan, GetItem, DescribeTable, ListTables"
                )
            }
        } catch let error as DynamoDBError {
            return error.response()
        } catch {
            return DynamoDBError(.internalServerError, "internal error: \(error)").response()
        }
    }
}
