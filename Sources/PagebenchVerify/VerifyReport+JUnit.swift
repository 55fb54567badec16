import PagebenchBase

extension VerifyReport {
    /// One `<testcase>` a rule: broken is a failure whose text is the evidence, not
    /// applicable and could not tell are skipped (``PagebenchBase/JUnitXML``).
    var junit: String {
        let cases = results.map { result in
            let outcome: JUnitXML.Outcome =
                switch result.verdict {
                case .holds: .passed
                case .broken: .failed(message: result.note, details: result.evidence.joined(separator: "\n"))
                case .notApplicable, .couldNotTell: .skipped(message: "\(result.verdict.rawValue): \(result.note)")
                }
            return JUnitXML.TestCase(
                name: "\(result.rule.id) \(result.rule.title)",
                className: "pagebench.verify.\(target)",
                outcome: outcome,
                output: result.verdict == .holds ? result.note : ""
            )
        }
        return JUnitXML(suiteName: "pagebench verify \(target)", cases: cases, seconds: seconds).text
    }
}
