import PagebenchPage
import Testing

/// Conditions in DynamoDB's grammar and pagebench's filter text (W2, W6): the page
/// contract's parser, before any store pages them.
@Suite struct FilterExpressionTests {
    @Test func precedenceIsNotThenAndThenOr() throws {
        let parsed = try ConditionExpression(parsing: "a = :x OR NOT b < :y AND c >= :z", dialect: .dynamoDB)
        #expect(
            parsed
                == .or(
                    .comparison(.name("a"), .equal, .value(":x")),
                    .and(
                        .not(.comparison(.name("b"), .less, .value(":y"))),
                        .comparison(.name("c"), .greaterOrEqual, .value(":z"))
                    )
                )
        )
        let grouped = try ConditionExpression(
            parsing: "(#a = :x OR #b <> :y) AND c BETWEEN :l AND :h",
            dialect: .dynamoDB
        )
        #expect(
            grouped
                == .and(
                    .or(
                        .comparison(.name("#a"), .equal, .value(":x")),
                        .comparison(.name("#b"), .notEqual, .value(":y"))
                    ),
                    .between(.name("c"), .value(":l"), .value(":h"))
                )
        )
    }

    @Test(arguments: [
        ("a = 1", "literal '1'"),
        ("a != :x", "'!=' at offset 2 is not a DynamoDB comparator"),
        ("begins_with(a, :x)", "function 'begins_with'"),
        ("a IN (:x, :y)", "IN at offset 2"),
        ("a.b = :x", "document path"),
        ("(a = :x", "is not closed"),
        ("a = :x b", "unexpected name 'b'"),
        ("a =", "ends after '='"),
        ("a BETWEEN :x", "needs 'low AND high'"),
        ("", "ends where a condition was expected"),
        ("a = :x $", "unexpected character '$'"),
    ])
    func unsupportedOrMalformedDynamoDBConditionsAreNamed(text: String, expected: String) {
        #expect(throws: ExpressionError.self) { try ConditionExpression(parsing: text, dialect: .dynamoDB) }
        do {
            _ = try ConditionExpression(parsing: text, dialect: .dynamoDB)
        } catch {
            #expect(error.message.contains(expected), "\(error.message)")
        }
    }

    @Test func hostileNestingIsRefusedNotACrash() {
        let deep = String(repeating: "(", count: 3000) + "a = :x" + String(repeating: ")", count: 3000)
        #expect(throws: ExpressionError.self) { try ConditionExpression(parsing: deep, dialect: .dynamoDB) }
        let nots = String(repeating: "NOT ", count: 1000) + "a = :x"
        #expect(throws: ExpressionError.self) { try ConditionExpression(parsing: nots, dialect: .dynamoDB) }
    }

    @Test func filterTextReadsCompoundConditionsAndKeepsSimpleForms() throws {
        #expect(try Filter(parsing: "category = 3") == .categoryEquals(3))
        #expect(try Filter(parsing: "sizeBytes >= 100") == .sizeAtLeast(100))
        let compound = try Filter(parsing: "category=0 and (size<200 or not category<>0)")
        #expect(
            compound
                == .expression(
                    .and(
                        .comparison(.category, .equal, 0),
                        .or(.comparison(.sizeBytes, .less, 200), .not(.comparison(.category, .notEqual, 0)))
                    )
                )
        )
        // The canonical text reads back to the same filter (REST query, workload JSON).
        for text in [
            "category=0 and size>=1", "(category=0 or category=1) and not size between 5 and 9", "size<10 or size>100",
        ] {
            let filter = try Filter(parsing: text)
            #expect(try Filter(parsing: filter.description) == filter, "\(text) → \(filter)")
        }
        for bad in ["category=0 and", "weight=3 or category=0", "size < -4 or category=1", "category = :x"] {
            #expect(throws: PageError.self) { try Filter(parsing: bad) }
            do {
                _ = try Filter(parsing: bad)
            } catch {
                #expect(error.kind == .invalidRequest, "\(bad)")
                #expect(error.message.hasPrefix("invalid configuration: filter '\(bad)'"), "\(error.message)")
            }
        }
    }
}
