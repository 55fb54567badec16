import NIOCore
import PagebenchHTTPClient
import PagebenchPage
import PagebenchPager
import PagebenchStore
import PagebenchWire
import Testing

/// Issue 39: the page contract's `PageError.Kind` is the one classification of a failed page,
/// and its `isRetryable` the one retry rule. Every error type of a page source says its kind
/// (`PageFailure.pageErrorKind`), and every path that decides a retry gives the kind's answer:
/// the store's `StoreError.isRetryable`, a served store's error body (`retryable`), the pagers'
/// default `RetryPolicy`, and `PageError.isRetryable` itself. No socket, no server.
@Suite
struct OneRetryRuleTests {
    @Test("S21: a store code's retryability is its kind's, in-process, in the HTTP body and in the pagers")
    func s21StoreCodesRetryByTheirKindOnEveryPath() {
        let pagers = RetryPolicy(maxRetries: 1)
        for code in StoreError.Code.allCases {
            let kind = code.pageErrorKind
            let error = StoreError(remote: code, message: "m")
            #expect(PageError.Kind(classifying: error) == kind, "\(code)")
            #expect(StoreHTTPErrorCode.store(code).pageErrorKind == kind, "\(code)")
            #expect(error.isRetryable == kind.isRetryable, "\(code)")
            #expect(ErrorBody(code: .store(code), message: "m").retryable == kind.isRetryable, "\(code)")
            #expect(pagers.isRetryable(error) == kind.isRetryable, "\(code)")
            #expect(PageError.isRetryable(error) == kind.isRetryable, "\(code)")
        }
        // The retryable store codes are exactly the S21 pair.
        #expect(StoreError.Code.allCases.filter { $0.pageErrorKind.isRetryable } == [.throttled, .injectedFault])
    }

    @Test("T2: the HTTP-only codes are refusals, not retried, as a client reading the body classifies them")
    func t2HTTPOnlyCodesAreRefusals() {
        let pagers = RetryPolicy(maxRetries: 1)
        for code in [StoreHTTPErrorCode.invalidParameter, .notFound, .internalError] {
            #expect(code.pageErrorKind == .refused, "\(code)")
            #expect(!ErrorBody(code: code, message: "m").retryable, "\(code)")
            let error = HTTPSourceError.rejected(status: 400, serverCode: code.name, message: "m")
            #expect(PageError.Kind(classifying: error) == code.pageErrorKind, "\(code)")
            #expect(!pagers.isRetryable(error), "\(code)")
        }
    }

    @Test("T2: a served store's client errors have kinds, and none is retryable (a broken connection ends a drain)")
    func t2HTTPSourceErrorsHaveKindsAndAreNotRetried() {
        let pagers = RetryPolicy(maxRetries: 1)
        let errors: [(HTTPSourceError, PageError.Kind)] = [
            (.invalidTarget("x", "no scheme"), .invalidRequest),
            (.transport("http://127.0.0.1:1/items", CancellationError()), .transport),
            (.malformedResponse("no items", body: ByteBuffer(string: "{}")), .malformedAnswer),
            (.rejected(status: 404, serverCode: "notFound", message: "m"), .refused),
        ]
        for (error, kind) in errors {
            #expect(error.pageErrorKind == kind, "\(error)")
            #expect(PageError.Kind(classifying: error) == kind, "\(error)")
            #expect(!pagers.isRetryable(error) && !PageError.isRetryable(error), "\(error)")
        }
    }

    @Test("every PageError.Kind is retried by the pagers' default policy exactly when the kind says so")
    func everyKindRetriesByItsOwnRule() {
        let pagers = RetryPolicy(maxRetries: 1)
        for kind in PageError.Kind.allCases {
            #expect(pagers.isRetryable(PageError(kind, "m")) == kind.isRetryable, "\(kind)")
        }
        #expect(PageError.Kind.allCases.filter(\.isRetryable) == [.throttled, .transient])
    }

    @Test("T2: every real-target cause refines one kind (transport, refused, malformed answer), none retryable")
    func t2TargetCausesRefineTheKinds() {
        let pagers = RetryPolicy(maxRetries: 1)
        for cause in PageError.Cause.allCases {
            #expect([PageError.Kind.transport, .refused, .malformedAnswer].contains(cause.pageErrorKind), "\(cause)")
            #expect(!pagers.isRetryable(PageError(cause.pageErrorKind, "\(cause)")), "\(cause)")
        }
    }
}
