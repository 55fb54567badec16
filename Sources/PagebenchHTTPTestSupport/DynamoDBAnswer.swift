import Foundation
import HTTPTypes
import NIOHTTP1

/// One DynamoDB JSON API response of a live server: status, content type and the decoded
/// JSON object (for the DynamoDB front end's tests and the bounds that apply to it).
package struct DynamoDBAnswer {
    package var status: Int
    package var contentType: String?
    package var json: [String: Any]
    package var errorType: String? { (json["__type"] as? String)?.split(separator: "#").last.map(String.init) }
    package var message: String { json["message"] as? String ?? "" }
    package var items: [[String: Any]] { json["Items"] as? [[String: Any]] ?? [] }
    package var keys: [[Int]] {
        items.map {
            [
                Int(($0["pk"] as? [String: String])?["N"] ?? "") ?? -1,
                Int(($0["sk"] as? [String: String])?["N"] ?? "") ?? -1,
            ]
        }
    }
    package var lastEvaluatedKey: [Int]? {
        guard let key = json["LastEvaluatedKey"] as? [String: [String: String]] else { return nil }
        return [Int(key["pk"]?["N"] ?? "") ?? -1, Int(key["sk"]?["N"] ?? "") ?? -1]
    }

    /// Sends DynamoDB `operation` with `body` to the live server at `target`.
    package static func call(
        _ target: String,
        _ operation: String,
        _ body: String,
        headers: [(String, String)] = []
    ) async throws -> DynamoDBAnswer {
        let client = try TestHTTPClient(target)
        let response = try await client.execute(
            uri: "/",
            method: .POST,
            headers: [
                ("X-Amz-Target", "DynamoDB_20120810.\(operation)"), ("Content-Type", "application/x-amz-json-1.0"),
            ] + headers,
            body: body
        )
        let object = try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any]
        return DynamoDBAnswer(
            status: response.status.code,
            contentType: response.headers[.contentType],
            json: object ?? [:]
        )
    }
}
