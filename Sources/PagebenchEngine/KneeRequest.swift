import PagebenchHarness

/// What a knee search (``KneeSession``) is asked to do, parsed and validated by its caller.
package struct KneeRequest: Sendable {
    /// The scenario file (nil: the built-in default scenario); its `slo` list is judged too.
    package var scenarioFile: String?
    /// `--slo` expressions, added to the scenario's list.
    package var sloExpressions: [String]
    /// The rates: where to start, where to stop, how finely to bisect.
    package var search: KneeSearch
    /// The first rate in drains per second, as the header line says it.
    package var startRate: Double
    /// How long each step runs, in seconds.
    package var stepDuration: Double
    /// Pager slots of every step.
    package var pagers: Int
    /// Where every step's row goes (CSV).
    package var output: String
    /// Only the knee line and errors.
    package var quiet = false
    /// The run of one step: open-fixed at `rate` drains/s for ``stepDuration``, one repetition
    /// on ``pagers`` slots, its rows to `output`, quiet, its SLOs not judged (the search judges).
    package var step: @Sendable (_ rate: Double, _ output: String) throws(CommandError) -> RunRequest

    package init(
        scenarioFile: String?,
        sloExpressions: [String],
        search: KneeSearch,
        startRate: Double,
        stepDuration: Double,
        pagers: Int,
        output: String,
        step: @escaping @Sendable (_ rate: Double, _ output: String) throws(CommandError) -> RunRequest
    ) {
        self.scenarioFile = scenarioFile
        self.sloExpressions = sloExpressions
        self.search = search
        self.startRate = startRate
        self.stepDuration = stepDuration
        self.pagers = pagers
        self.output = output
        self.step = step
    }
}
