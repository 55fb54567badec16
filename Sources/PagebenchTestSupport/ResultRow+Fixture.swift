import PagebenchMetrics

extension ResultRow {
    /// A row any reader of results files accepts (issue 24: every reader refuses a row no run
    /// writes): the context every row has, one pager, repetition 1, limit 1, and every
    /// optional column empty. Tests set what they compare on top of it.
    package static func fixture(scenario: String = "test", repetition: Int = 1) -> ResultRow {
        var row = ResultRow()
        row.timestampUTC = "2026-11-22T02:39:43Z"
        row.pagebenchVersion = "0.1.0"
        row.swiftVersion = "6.3"
        row.buildConfiguration = "debug"
        row.host = "test-host"
        row.cores = 1
        row.scenario = scenario
        row.configHash = "0000000000000000"
        row.pagerKind = "loop"
        row.loadModel = "closed"
        row.concurrency = 1
        row.repetition = repetition
        row.limit = 1
        return row
    }
}
