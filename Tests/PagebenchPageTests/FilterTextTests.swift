import PagebenchPage
import Testing

/// The filter's text form (CLI `--filter`, workload JSON, the REST `filter` parameter): it
/// reads back to the same filter, and a text it does not understand is a
/// ``PageError/Kind/invalidRequest`` worded as a configuration error.
@Suite struct FilterTextTests {
    /// The error `text` is refused with, if any.
    func refusal(_ text: String) -> PageError? {
        do {
            _ = try Filter(parsing: text)
            return nil
        } catch {
            return error
        }
    }

    @Test func simpleFormsRoundTrip() throws {
        for filter in [Filter.categoryEquals(3), .categoryNotEquals(0), .sizeAtLeast(100), .sizeAtMost(7)] {
            #expect(try Filter(parsing: filter.description) == filter)
        }
        #expect(try Filter(parsing: "match") == .matching)
        #expect(Filter.matching == .categoryEquals(0))
    }

    @Test func compoundFormsRoundTripThroughTheirCanonicalText() throws {
        for text in [
            "category=0 and size>=1", "(category=0 or category=1) and not size between 5 and 9", "size<10 or size>100",
        ] {
            let filter = try Filter(parsing: text)
            #expect(try Filter(parsing: filter.description) == filter, "\(text) → \(filter)")
        }
        // A condition of a simple form is that form (its text and token binding are the simple one's).
        #expect(try Filter(parsing: "category = 3") == .categoryEquals(3))
        #expect(try Filter(parsing: "sizeBytes >= 100") == .sizeAtLeast(100))
    }

    @Test(arguments: ["", "size>", "category=x", "color=red", "size>=-1", "category=0 and", "category = :x"])
    func textThatIsNotAFilterIsAnInvalidRequest(text: String) throws {
        let error = try #require(refusal(text), "'\(text)' was accepted")
        #expect(error.kind == .invalidRequest)
        #expect(!error.isRetryable)
        #expect(error.message.hasPrefix("invalid configuration: filter '\(text)'"), "\(error.message)")
        #expect(error.message.contains("use 'match', 'category=N'"), "\(error.message)")
    }

    /// Issue 24: a filter on a category no item has (categories are 0 to 15) is a typo.
    @Test(arguments: ["category=16", "category!=99", "category=0 or category>20", "category between 3 and 16"])
    func aCategoryAbove15IsRefused(text: String) throws {
        let error = try #require(refusal(text), "'\(text)' was accepted")
        #expect(error.kind == .invalidRequest)
        #expect(error.message.contains("there is no category"), "\(error.message)")
    }

    @Test func categoriesUpTo15AreFilters() throws {
        #expect(try Filter(parsing: "category=15") == .categoryEquals(15))
        #expect(
            try Filter(parsing: "category between 0 and 15 and size>=100").description
                == "category between 0 and 15 and size>=100"
        )
    }

    @Test func matchingReadsCategoryAndSize() throws {
        let filter = try Filter(parsing: "(category=0 or size<120) and not size between 300 and 350")
        #expect(filter.matches(category: 0, sizeBytes: 500))
        #expect(filter.matches(category: 4, sizeBytes: 100))
        #expect(!filter.matches(category: 0, sizeBytes: 320))
        #expect(!filter.matches(category: 4, sizeBytes: 200))
    }
}
