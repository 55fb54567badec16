import PagebenchBase
import PagebenchPage
import PagebenchStore

/// A page request as it travels over HTTP: the range in the path, everything else in the
/// query string.
///
/// | endpoint | range |
/// | --- | --- |
/// | `GET /partitions/{p}/items` | ``ScanRange/partition(_:)`` (query, S14) |
/// | `GET /scan` | ``ScanRange/scan`` (S14) |
/// | `GET /scan/segments/{i}/{n}` | ``ScanRange/segment(index:total:)`` (S15) |
///
/// | parameter | meaning |
/// | --- | --- |
/// | `limit=N` | items to evaluate (S1, S2); the store's default when absent |
/// | `filter=SPEC` | `match`, `category=N`, `category!=N`, `size>=BYTES`, `size<=BYTES` (as `--filter`) |
/// | `reverse=true` | descending key order (S13); `true`/`false`/`1`/`0` |
/// | `nextToken=T` | the previous page's token (S16–S19) |
/// | `payload=true` | also return each item's payload bytes (base64); the server's `--payload` sets the default |
///
/// Unknown, repeated or malformed parameters are rejected (400 `invalidParameter`) rather
/// than ignored: a misspelt `limt=5` silently paging with the default limit would make a
/// benchmark measure the wrong thing.
package struct PageQuery: Sendable, Hashable {
    /// The store request.
    package var request: PageRequest
    /// Whether items carry their payload; `nil` leaves it to the server's default.
    package var includePayload: Bool?

    package init(request: PageRequest, includePayload: Bool? = nil) {
        self.request = request
        self.includePayload = includePayload
    }

    /// The accepted query parameters.
    package static let parameterNames = ["limit", "filter", "reverse", "nextToken", "payload"]

    /// The path of a range's endpoint: `/scan`, `/partitions/3/items`, `/scan/segments/1/4`.
    package static func path(for range: ScanRange) -> String {
        switch range {
        case .scan: "/scan"
        case .partition(let partition): "/partitions/\(partition)/items"
        case .segment(let index, let total): "/scan/segments/\(index)/\(total)"
        }
    }

    /// Path and query string of this request (percent-encoded), e.g.
    /// `/scan?limit=100&filter=category%3D0&nextToken=AgAB…`.
    package var pathAndQuery: String {
        var text = Self.path(for: request.range)
        // One allocation for the whole target: the token is most of it (a request per page).
        text.reserveCapacity(text.utf8.count + 64 + (request.token?.utf8.count ?? 0))
        var separator = "?"
        func append(_ name: String, _ value: String) {
            text += separator
            text += name
            text += "="
            text += PercentEncoding.encoded(value)
            separator = "&"
        }
        if let limit = request.limit { append("limit", String(limit)) }
        if let filter = request.filter { append("filter", filter.description) }
        if request.reverse { append("reverse", "true") }
        if let token = request.token { append("nextToken", token) }
        if let includePayload { append("payload", includePayload ? "true" : "false") }
        return text
    }

    /// Parses the query parameters of a request for `range`.
    ///
    /// - Throws: ``QueryParameterError`` naming the parameter, what was wrong and what is accepted.
    package init<Parameters: Sequence>(
        range: ScanRange,
        parameters: Parameters
    ) throws(QueryParameterError) where Parameters.Element == (key: Substring, value: Substring) {
        var request = PageRequest(range: range)
        var includePayload: Bool?
        var seen: Set<Substring> = []
        for (key, value) in parameters {
            guard seen.insert(key).inserted else {
                throw QueryParameterError("query parameter '\(key)' is given more than once; give it once")
            }
            switch key {
            case "limit":
                // The store rejects limits < 1 itself (S1: invalidLimit); here only the syntax.
                guard let limit = Int(value) else {
                    throw QueryParameterError(
                        "query parameter limit='\(value)' is not a whole number; use e.g. limit=100"
                    )
                }
                request.limit = limit
            case "filter":
                do {
                    request.filter = try Filter(parsing: String(value))
                } catch {
                    throw QueryParameterError("query parameter filter: \(error.message)")
                }
            case "reverse":
                request.reverse = try Self.boolean(name: "reverse", value)
            case "nextToken":
                request.token = String(value)
            case "payload":
                includePayload = try Self.boolean(name: "payload", value)
            default:
                throw QueryParameterError(
                    "unknown query parameter '\(key)'; accepted: \(Self.parameterNames.joined(separator: ", "))"
                )
            }
        }
        self.init(request: request, includePayload: includePayload)
    }

    /// Parses a path parameter that must be a whole number (partition, segment index or total).
    package static func pathNumber(_ name: String, _ text: String?) throws(QueryParameterError) -> Int {
        guard let text, let value = Int(text) else {
            throw QueryParameterError("path segment \(name) '\(text ?? "")' is not a whole number")
        }
        return value
    }

    private static func boolean(name: String, _ value: Substring) throws(QueryParameterError) -> Bool {
        switch value {
        case "true", "1": return true
        case "false", "0": return false
        default: throw QueryParameterError("query parameter \(name)='\(value)' must be true, false, 1 or 0")
        }
    }

}

/// A malformed, unknown or repeated query parameter or path segment: HTTP 400 with code
/// `invalidParameter`.
package struct QueryParameterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong and what is accepted.
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
