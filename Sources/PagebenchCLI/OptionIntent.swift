import Foundation

/// What someone coming from another load tester means by an option pagebench spells
/// otherwise. swift-argument-parser suggests the option nearest in spelling, so `run --rate`
/// (k6's and wrk2's arrival rate) got "did you mean '--pager'"; these say what to write.
enum OptionIntent {
    /// Per subcommand: an option it does not have → what to write instead.
    static let meanings: [String: [String: String]] = [
        "run": [
            "--rate":
                "an arrival rate is --load open-fixed:RATE or open-poisson:RATE (e.g. --load open-fixed:500/s); a ramp is --stages 30s:100/s-2000/s",
            "--rps": "an arrival rate is --load open-fixed:RATE or open-poisson:RATE (e.g. --load open-fixed:500/s)",
            "--threads": "pagers at once are --concurrency N (processes: --workers N)",
            "--vus": "pagers at once are --concurrency N",
            "--clients": "pagers at once are --concurrency N",
            "--connections": "pagers at once are --concurrency N (each holds one connection to a --target)",
            "--time": "a phase's length is --duration 30s",
            "--requests":
                "a phase's length in drains is --drains N (a drain follows tokens from a first request to the last page)",
            "--iterations": "a phase's length in drains is --drains N",
        ],
        "knee": [
            "--rate": "the search starts at --from RATE (e.g. --from 500/s) and never steps above --max-rate RATE",
            "--duration": "each step's length is --step-duration 10s",
            "--concurrency": "each step's pager slots are --pagers N",
        ],
    ]

    /// `message` with swift-argument-parser's suggestion for an unknown option replaced by what
    /// the option means for `subcommand`, if this table knows it; otherwise unchanged.
    static func rewrite(_ message: String, subcommand: String?) -> String {
        let prefix = "Unknown option '"
        guard let subcommand, let table = meanings[subcommand], let start = message.range(of: prefix),
            let end = message[start.upperBound...].firstIndex(of: "'")
        else { return message }
        let option = String(message[start.upperBound..<end])
        guard let meaning = table[option] else { return message }
        var rest = message[message.index(after: end)...]
        if rest.hasPrefix(". Did you mean '"), let close = rest.range(of: "'?") {
            rest = rest[close.upperBound...]
        }
        return String(message[..<start.lowerBound]) + prefix + option + "': pagebench \(subcommand) has no \(option); "
            + meaning + "." + rest
    }
}
