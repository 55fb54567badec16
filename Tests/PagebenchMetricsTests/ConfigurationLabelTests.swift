import Testing

@testable import PagebenchMetrics

/// The label that tells a row's configuration apart from the others of its file.
@Suite struct ConfigurationLabelTests {
    @Test func distinguishingNamesOnlyWhatDiffersAndFallsBackToTheName() {
        typealias P = ConfigurationLabel.Parameter
        let labels = ConfigurationLabel.distinguishing(
            [
                [P("scenario", "default"), P("limit", "10"), P("filter", "category=0"), P("read", "scan")],
                [P("scenario", "default"), P("limit", "100"), P("filter", "category=0"), P("read", "scan")],
                [P("scenario", "default"), P("limit", "100"), P("filter", "none"), P("read", "scan")],
            ],
            fallback: ["default", "default", "default"]
        )
        #expect(labels == ["limit=10 filter=category=0", "limit=100 filter=category=0", "limit=100 filter=none"])
        #expect(ConfigurationLabel.distinguishing([[P("scenario", "default")]], fallback: ["default"]) == ["default"])
        // Scenarios their names tell apart keep their names.
        #expect(
            ConfigurationLabel.distinguishing(
                [
                    [P("scenario", "empty-pages"), P("limit", "25")],
                    [P("scenario", "large-items"), P("limit", "100")],
                ],
                fallback: ["empty-pages", "large-items"]
            ) == ["empty-pages", "large-items"]
        )
        // A sweep of two scenarios: names and what varies.
        #expect(
            ConfigurationLabel.distinguishing(
                [
                    [P("scenario", "a"), P("limit", "10")], [P("scenario", "a"), P("limit", "100")],
                    [P("scenario", "b"), P("limit", "10")],
                ],
                fallback: ["a", "a", "b"]
            ) == ["a limit=10", "a limit=100", "b limit=10"]
        )
        let same = ConfigurationLabel.distinguishing(
            [[P("limit", "10")], [P("limit", "10")]],
            fallback: ["x", "x"],
            disambiguators: [["a.csv"], ["b.csv"]]
        )
        #expect(same == ["x (a.csv)", "x (b.csv)"])
    }
}
