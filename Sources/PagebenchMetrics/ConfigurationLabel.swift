/// Human names for configurations (issue 26): the parameters that make each one different
/// from the others it is shown with, `limit=100 filter=category=0 read=scan`, never a bare
/// hash. The configuration hash stays the identity; a label is only what a person reads.
public enum ConfigurationLabel {
    /// One parameter of a configuration as it reads in a label: `limit` and `100`. A parameter
    /// named `scenario` reads as its value alone.
    public struct Parameter: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }

        var text: String { name == "scenario" ? value : "\(name)=\(value)" }
    }

    /// The label of each configuration, in order: its scenario's name where the names alone
    /// tell every configuration apart, else its parameters whose values are not the same in
    /// every configuration (each list names the same parameters in the same order), or
    /// `fallback` (the scenario's name) where none differ. Configurations that still read the
    /// same get `disambiguators` (a file name, then the hash) appended until they differ.
    ///
    /// - Parameters:
    ///   - parameters: per configuration, its parameters in display order.
    ///   - fallback: per configuration, the label when nothing differs.
    ///   - disambiguators: per configuration, suffixes tried in order for labels still shared.
    public static func distinguishing(
        _ parameters: [[Parameter]],
        fallback: [String],
        disambiguators: [[String]] = []
    ) -> [String] {
        let names = parameters.flatMap { $0.map(\.name) }.reduce(into: [String]()) {
            if !$0.contains($1) { $0.append($1) }
        }
        let varying = names.filter { name in
            Set(parameters.map { list in list.first { $0.name == name }?.value ?? "" }).count > 1
        }
        // Scenarios that their names alone tell apart are named by them: a scenario file's
        // name was chosen by a person (`empty-pages`, `large-items`).
        let scenarios = parameters.map { list in list.first { $0.name == "scenario" }?.value ?? "" }
        var labels: [String]
        if varying.contains("scenario"), Set(scenarios).count == scenarios.count {
            labels = scenarios
        } else {
            labels = parameters.enumerated().map { index, list in
                let text = varying.compactMap { name in list.first { $0.name == name }?.text }.joined(separator: " ")
                return text.isEmpty ? fallback[index] : text
            }
        }
        var level = 0
        while level < (disambiguators.map(\.count).max() ?? 0) {
            let counts = Dictionary(grouping: labels, by: { $0 }).mapValues(\.count)
            guard counts.values.contains(where: { $0 > 1 }) else { break }
            labels = labels.enumerated().map { index, label in
                guard counts[label, default: 0] > 1, level < disambiguators[index].count else { return label }
                return label + " (\(disambiguators[index][level]))"
            }
            level += 1
        }
        return labels
    }
}

extension ResultRow {
    /// The workload parameters users vary, as a label reads them (issue 26): scenario, target,
    /// pager, limit, filter, read, load model and continuation mode. Files of schema 5 and
    /// earlier lack filter, read and continuation: those read as unknown (empty) there.
    public var labelParameters: [ConfigurationLabel.Parameter] {
        var load = loadModel
        if let rate = plannedDrainsPerSecond, stage == nil { load += ":" + CSVValue.decimal(rate).field }
        return [
            .init("scenario", scenario), .init("target", targetKind), .init("pager", pagerKind),
            .init("limit", limit.map(String.init) ?? ""),
            .init("filter", filter), .init("read", read), .init("load", load), .init("continuation", continuation),
        ]
    }
}
