import PagebenchHarness

extension RunSession {
    /// One scenario of a run as its caller built it: which file (or the default) it came from.
    package struct Planned: Sendable {
        package var scenario: Scenario
        /// The index of the file it was loaded from; points of one file's sweep share it.
        package var file: Int

        package init(_ scenario: Scenario, file: Int) {
            self.scenario = scenario
            self.file = file
        }
    }

    /// The scenarios of a run, checked for repeats and labelled: two files that give the same
    /// scenario name would give rows with the same identities (scenario, configuration, pager,
    /// concurrency), so they are refused (64); points of one file's sweep are told apart by
    /// their labels (issue 26). A shard (a `--workers` worker) gets each point of a sweep as a
    /// file of its own: there only the same configuration twice is refused.
    package static func scenarios(_ planned: [Planned], sharded: Bool) throws(CommandError) -> [Scenario] {
        // The first entry of each file per name (and per configuration when sharded): what
        // a later entry may clash with, found without a scan of every earlier entry (a sweep
        // of a thousand points made this quadratic).
        var firsts: [String: [Int: Int]] = [:]
        for (index, entry) in planned.enumerated() {
            let key = sharded ? entry.scenario.name + "\u{0}" + entry.scenario.configurationHash : entry.scenario.name
            let files = firsts[key, default: [:]]
            if let earlierIndex = files.filter({ $0.key != entry.file }).values.min() {
                let earlier = planned[earlierIndex]
                throw .usage(
                    "scenario '\(entry.scenario.name)' is given twice\(earlier.scenario.store == entry.scenario.store ? "" : " (with different stores)"); "
                        + "give each scenario once (use --repetitions to repeat it), or rename one"
                )
            }
            if files[entry.file] == nil { firsts[key, default: [:]][entry.file] = index }
        }
        // Each row says which configuration it measured in words (issue 26).
        return Scenario.labelled(planned.map(\.scenario))
    }
}
