import Foundation
import PagebenchMetrics
import PagebenchPage
import Testing

/// Issue 39: failed drains are counted by the page contract's kind (`PageError.Kind`), the one
/// classification; the CSV's six error columns group the kinds, and a kind's count survives
/// every path (shard files' JSON) that does not go through those columns.
@Suite struct ErrorCountsTests {
    @Test("S21, T2: each kind lands in the CSV column docs/contract.md names, and nowhere else")
    func s21t2EveryKindLandsInItsColumn() {
        let columns: [PageError.Kind: KeyPath<ErrorCounts, Int>] = [
            .invalidLimit: \.validation, .invalidSegment: \.validation, .unknownPartition: \.validation,
            .invalidRequest: \.validation, .invalidToken: \.invalidToken, .tokenMismatch: \.tokenMismatch,
            .throttled: \.throttled, .transient: \.fault, .transport: \.other, .refused: \.other,
            .malformedAnswer: \.other,
        ]
        let all: [KeyPath<ErrorCounts, Int>] = [
            \.throttled, \.fault, \.invalidToken, \.tokenMismatch, \.validation, \.other,
        ]
        #expect(Set(columns.keys) == Set(PageError.Kind.allCases), "every kind has a column")
        for kind in PageError.Kind.allCases {
            var counts = ErrorCounts()
            counts.record(kind)
            #expect(counts[kind] == 1 && counts.total == 1, "\(kind)")
            for column in all { #expect(counts[keyPath: column] == (column == columns[kind]! ? 1 : 0), "\(kind)") }
        }
        var foreign = ErrorCounts()
        foreign.record(nil)
        #expect(foreign.unclassified == 1 && foreign.other == 1 && foreign.total == 1)
    }

    @Test("counts by kind add up and survive a JSON round trip (shard files), every kind present")
    func countsByKindRoundTrip() throws {
        var counts = ErrorCounts()
        for (index, kind) in PageError.Kind.allCases.enumerated() {
            for _ in 0...index { counts.record(kind) }
        }
        counts.record(nil)
        var doubled = counts
        doubled.add(counts)
        #expect(doubled.total == 2 * counts.total)
        #expect(PageError.Kind.allCases.allSatisfy { doubled[$0] == 2 * counts[$0] })
        let data = try JSONEncoder().encode(counts)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
        #expect(Set(object.keys) == Set(PageError.Kind.allCases.map(\.rawValue) + ["unclassified"]))
        #expect(try JSONDecoder().decode(ErrorCounts.self, from: data) == counts)
        #expect(
            ErrorCounts()
                == {
                    var zero = ErrorCounts()
                    zero.record(.refused)
                    zero[.refused] = 0
                    return zero
                }()
        )
    }

    @Test("a row read from a CSV keeps each column's count (the kinds inside a group are not in the file)")
    func columnsSetFromACSVKeepTheirCounts() {
        var counts = ErrorCounts()
        counts.validation = 4
        counts.other = 3
        counts.fault = 2
        #expect(counts.validation == 4 && counts.other == 3 && counts.fault == 2 && counts.total == 9)
    }

    @Test("T2: a target's failures are counted by the page contract's cause (typed keys), one column per cause")
    func t2TargetErrorsAreKeyedByCause() {
        var remote = RemoteCounts(targetErrors: [.notJSON: 3, .transport: 1])
        remote.add(RemoteCounts(targetErrors: [.notJSON: 2, .apiError: 4]))
        let since = remote.since(RemoteCounts(targetErrors: [.transport: 1]))
        #expect(since.targetErrors == [.notJSON: 5, .apiError: 4])
        var row = ResultRow()
        row.apply(since)
        #expect(row.targetErrors.notJSON == 5 && row.targetErrors.apiError == 4 && row.targetErrors[.transport] == 0)
        let columns = ResultRow.csvColumns.map(\.name).filter { $0.hasPrefix("target_errors_") }
        #expect(columns.count == PageError.Cause.allCases.count, "\(columns)")
    }
}
