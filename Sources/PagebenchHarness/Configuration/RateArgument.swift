/// An arrival rate given on the command line, in drains per second: `500/s` as rate stages
/// write it, or a bare number (`500`).
public enum RateArgument {
    /// The drains per second `text` stands for. The range is the flag's own check.
    ///
    /// - Parameter flag: the option, named in the error (`--from`).
    public static func drainsPerSecond(_ text: String, flag: String) throws(HarnessError) -> Double {
        let spec = WorkloadText.trimmed(text)
        let number = spec.hasSuffix("/s") ? String(spec.dropLast(2)) : spec
        guard let rate = Double(number), rate.isFinite else {
            throw HarnessError(
                .invalidArgument,
                "\(flag): '\(text)' is not a rate; write drains per second (not requests: a drain is every page of one pagination), e.g. 500/s or 500"
            )
        }
        return rate
    }
}
