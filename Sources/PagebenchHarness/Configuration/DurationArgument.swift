import PagebenchBase

/// A duration given on the command line, in the one grammar every duration flag takes: a
/// number with a unit, as stages and retry backoffs write it (`2s`, `1.5s`, `500ms`, `250us`,
/// `40ns`, `2m`, `1h`: ``PagebenchBase/DurationText``), or a bare number of seconds (`2`), as
/// the flags took before they took units.
public enum DurationArgument {
    /// The seconds `text` stands for. The range is the flag's own check, not this one's.
    ///
    /// - Parameter flag: the option, named in the error (`--duration`).
    public static func seconds(_ text: String, flag: String) throws(HarnessError) -> Double {
        if let seconds = Double(WorkloadText.trimmed(text)), seconds.isFinite { return seconds }
        do {
            return Double(try WorkloadText.durationNanoseconds(text, field: flag)) / 1e9
        } catch {
            throw HarnessError(
                .invalidArgument,
                "\(flag): '\(text)' is not a duration; write a number and a unit, \(DurationText.unitList) (e.g. 2s, 500ms, 2m), or a number of seconds"
            )
        }
    }
}
