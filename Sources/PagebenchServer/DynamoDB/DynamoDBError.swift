import HTTPTypes
import HummingbirdCore
import NIOCore
import PagebenchWire

/// A DynamoDB JSON 1.0 error (W5): `{"__type": "com.amazonaws.dynamodb.v20120810#Kind",
/// "message": …}`, the body the AWS SDKs and the AWS CLI turn into their own exceptions
/// (boto3's `ClientError` with `Error.Code` = the kind).
struct DynamoDBError: Error, Sendable {
    /// The kinds pagebench answers with, and their status codes.
    enum Kind: String, Sendable, CaseIterable {
        /// Bad input: an unsupported parameter or expression, a wrong type, a bad start key.
        case validation = "ValidationException"
        /// A table other than the served one.
        case resourceNotFound = "ResourceNotFoundException"
        /// Injected throttling (S21); the SDKs retry it.
        case throughputExceeded = "ProvisionedThroughputExceededException"
        /// An injected fault (S21); the SDKs retry it.
        case internalServerError = "InternalServerError"
        /// An `X-Amz-Target` that names no supported operation.
        case unknownOperation = "UnknownOperationException"

        var status: HTTPResponse.Status {
            self == .internalServerError ? .internalServerError : .badRequest
        }
    }

    let kind: Kind
    let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    static func validation(_ message: String) -> DynamoDBError { DynamoDBError(.validation, message) }

    /// The error as DynamoDB sends it.
    func response() -> Response {
        var json = JSONWriter(capacity: 96 + message.utf8.count)
        json.raw("{\"__type\":\"com.amazonaws.dynamodb.v20120810#")
        json.buffer.writeString(kind.rawValue)
        json.raw("\",\"message\":")
        json.string(message)
        json.raw("}")
        return Response(status: kind.status, headers: DynamoDBRoutes.headers, body: .init(byteBuffer: json.buffer))
    }
}
