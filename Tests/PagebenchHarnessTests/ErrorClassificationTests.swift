import PagebenchMetrics
import PagebenchPage
import PagebenchStore
import Testing

@testable import PagebenchHarness

/// The harness's one classification of a failed drain: by the page contract's kind
/// (`PageError.Kind(classifying:)`), whichever source threw (the store's `StoreError`, a
/// target's `PageError`), counted by that kind (`ErrorCounts`), whose CSV columns group kinds.
@Suite struct ErrorClassificationTests {
    /// The CSV column (as its `ErrorCounts` property) a failure of `error` is counted in.
    private static func column(of error: any Error) -> String {
        var counts = ErrorCounts()
        counts.record(PageError.Kind(classifying: error))
        let columns: [(String, Int)] = [
            ("throttled", counts.throttled), ("fault", counts.fault), ("invalidToken", counts.invalidToken),
            ("tokenMismatch", counts.tokenMismatch), ("validation", counts.validation), ("other", counts.other),
        ]
        #expect(counts.total == 1 && columns.filter { $0.1 == 1 }.count == 1)
        return columns.first { $0.1 == 1 }?.0 ?? "none"
    }

    @Test func everyPageErrorKindHasItsColumn() {
        let expected: [PageError.Kind: String] = [
            .throttled: "throttled", .transient: "fault", .invalidToken: "invalidToken",
            .tokenMismatch: "tokenMismatch",
            .invalidLimit: "validation", .invalidSegment: "validation", .unknownPartition: "validation",
            .invalidRequest: "validation", .transport: "other", .refused: "other", .malformedAnswer: "other",
        ]
        for kind in PageError.Kind.allCases {
            #expect(Self.column(of: PageError(kind, "m")) == expected[kind], "\(kind)")
        }
    }

    /// The store's codes land in the columns docs/contract.md lists ("Where a broken rule
    /// shows up"), as they did before the page contract.
    @Test func storeErrorsLandInTheirColumns() {
        let expected: [StoreError.Code: String] = [
            .invalidLimit: "validation", .invalidToken: "invalidToken", .tokenMismatch: "tokenMismatch",
            .invalidSegment: "validation", .unknownPartition: "validation", .throttled: "throttled",
            .injectedFault: "fault", .invalidConfiguration: "validation",
        ]
        for code in StoreError.Code.allCases {
            let error = StoreError(remote: code, message: "m")
            #expect(Self.column(of: error) == expected[code], "\(code)")
            #expect(PageError.isRetryable(error) == error.isRetryable, "\(code)")
        }
    }

    @Test func anErrorThatIsNoPageFailureIsOther() {
        struct Unrelated: Error {}
        #expect(PageError.Kind(classifying: Unrelated()) == nil)
        #expect(Self.column(of: Unrelated()) == "other")
        #expect(!PageError.isRetryable(Unrelated()))
    }
}
