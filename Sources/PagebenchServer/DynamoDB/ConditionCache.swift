import PagebenchPage
import PagebenchStore
import Synchronization

/// Parsed DynamoDB conditions by their text, so that a load test of the endpoint measures
/// the store rather than the expression parser (clients send the same few expression
/// texts with different values). Bounded: when full it starts over.
final class ConditionCache: Sendable {
    static let capacity = 512
    private let entries = Mutex<[String: ConditionExpression]>([:])

    /// The parsed `text` (DynamoDB's dialect), from the cache or parsed now.
    func condition(_ text: String) throws(ExpressionError) -> ConditionExpression {
        if let cached = entries.withLock({ $0[text] }) { return cached }
        let parsed = try ConditionExpression(parsing: text, dialect: .dynamoDB)
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[text] = parsed
        }
        return parsed
    }

    /// Conditions held (for tests).
    var count: Int { entries.withLock { $0.count } }
}
