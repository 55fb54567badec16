import PagebenchPage
import Testing

/// The page contract's error kinds: which are retried (S21, T3) and how any source's error
/// is classified by kind.
@Suite struct PageErrorTests {
    @Test func onlyThrottledAndTransientAreRetryable() {
        for kind in PageError.Kind.allCases {
            #expect(kind.isRetryable == (kind == .throttled || kind == .transient), "\(kind)")
            #expect(PageError(kind, "x").isRetryable == kind.isRetryable)
        }
    }

    @Test func classifyingAPageErrorGivesItsKind() {
        for kind in PageError.Kind.allCases {
            #expect(PageError.Kind(classifying: PageError(kind, "m", status: 429)) == kind)
            #expect(PageError.isRetryable(PageError(kind, "m")) == kind.isRetryable)
        }
    }

    /// A source's own error names its kind through `PageFailure`; anything else is no page
    /// failure (the harness's `errors_other`), `CancellationError` included.
    @Test func classifyingOtherErrors() {
        struct SourceOwnError: PageFailure {
            var pageErrorKind: PageError.Kind { .tokenMismatch }
            var message: String { "mismatch" }
        }
        struct Unrelated: Error {}
        #expect(PageError.Kind(classifying: SourceOwnError()) == .tokenMismatch)
        #expect(PageError.Kind(classifying: Unrelated()) == nil)
        #expect(PageError.Kind(classifying: CancellationError()) == nil)
        #expect(!PageError.isRetryable(Unrelated()))
        #expect(!PageError.isRetryable(CancellationError()))
    }

    @Test func messageAndStatusAreKept() {
        let error = PageError(.refused, "GET /items answered HTTP 418", status: 418)
        #expect(error.description == "GET /items answered HTTP 418")
        #expect(error.message == error.description)
        #expect(error.status == 418)
        #expect(PageError(.transport, "no answer").status == nil)
    }
}

/// What an item is in the contract: key and size for every source, the synthetic store's
/// attributes only on its items; 40 bytes either way (the store's per-item cost).
@Suite struct ItemTests {
    @Test func anItemKnownByKeyAndSizeHasNoInventedAttributes() {
        let item = Item(partition: 2, sortKey: 7, sizeBytes: 120)
        #expect(item.attributes == nil)
        #expect(item != Item(partition: 2, sortKey: 7, sizeBytes: 120, category: 0, fingerprint: 0))
        // The target applied the filter it was sent: pagebench does not judge its items.
        #expect(item.matches(.categoryEquals(3)))
        #expect(item.matches(nil))
    }

    @Test func theStoresItemsCarryTheirAttributes() {
        let item = Item(partition: 1, sortKey: 3, sizeBytes: 500, category: 4, fingerprint: 0xfeed)
        #expect(item.attributes?.category == 4)
        #expect(item.attributes?.fingerprint == 0xfeed)
        #expect(item.matches(.categoryEquals(4)))
        #expect(!item.matches(.categoryEquals(0)))
        #expect(!item.matches(.sizeAtMost(499)))
    }

    @Test func anItemStaysFortyBytes() {
        #expect(MemoryLayout<Item>.stride == 40)
    }
}
