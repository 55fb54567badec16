@testable import PagebenchHarness
import PagebenchMetrics
import PagebenchPage
import PagebenchStore
import Testing

/// The harness's one classification of a failed drain: by the page contract's kind,
/// whichever source threw (the store's `StoreError`, a target's `PageError`).
@Suite struct ErrorClassificationTests {
    @Test func everyPageErrorKindHasItsColumn() {
        let expected: [PageError.Kind: ErrorKind] = [
            .throttled: .throttled, .transient: .fault, .invalidToken: .invalidToken, .tokenMismatch: .tokenMismatch,
            .invalidLimit: .validation, .invalidSegment: .validation, .unknownPartition: .validation, .invalidRequest: .validation,
            .transport: .other, .refused: .other, .malformedAnswer: .other,
        ]
        for kind in PageError.Kind.allCases {
            #expect(ErrorKind(classifying: PageError(kind, "m")) == expected[kind], "\(kind)")
        }
    }

    /// The store's codes land in the columns docs/contract.md lists ("Where a broken rule
    /// shows up"), as they did before the page contract.
    @Test func storeErrorsLandInTheirColumns() {
        let expected: [StoreError.Code: ErrorKind] = [
            .invalidLimit: .validation, .invalidToken: .invalidToken, .tokenMismatch: .tokenMismatch, .invalidSegment: .validation,
            .unknownPartition: .validation, .throttled: .throttled, .injectedFault: .fault, .invalidConfiguration: .validation,
        ]
        for code in StoreError.Code.allCases {
            let error = StoreError(remote: code, message: "m")
            #expect(ErrorKind(classifying: error) == expected[code], "\(code)")
            #expect(PageError.isRetryable(error) == error.isRetryable, "\(code)")
        }
    }

    @Test func anErrorThatIsNoPageFailureIsOther() {
        struct Unrelated: Error {}
        #expect(ErrorKind(classifying: Unrelated()) == .other)
        #expect(!PageError.isRetryable(Unrelated()))
    }
}
