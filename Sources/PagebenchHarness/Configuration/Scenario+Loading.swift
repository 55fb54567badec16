import Foundation
import PagebenchBase
import PagebenchStore

extension Scenario {
    static let jsonKeys = ["name", "label", "description", "store", "workload", "target", "slo"]

    /// Decodes and validates a scenario from JSON.
    ///
    /// - Parameters:
    ///   - defaultName: the name when the file has no `name` key (its file name).
    ///   - file: the path, for error messages.
    /// - Throws: ``HarnessError`` (`invalidScenario`) naming the field that is wrong.
    public static func load(json data: Data, defaultName: String, file: String? = nil) throws(HarnessError) -> Scenario
    {
        do {
            let scenario = try decode(json: data, defaultName: defaultName)
            // The store section was validated as it was read (StoreConfiguration.load).
            try scenario.validate(includingStore: false)
            return scenario
        } catch {
            throw file.map(error.inFile) ?? error
        }
    }

    /// Reads, decodes and validates a scenario file; its name defaults to the file name
    /// without `.json`.
    ///
    /// - Throws: ``HarnessError``: `inputUnavailable` when the file is missing or unreadable,
    ///   `invalidScenario` for bad content.
    public static func load(path: String) throws(HarnessError) -> Scenario {
        let data = try HarnessError.readInput(
            path,
            ifMissing: "no such scenario file; check the path (shipped scenarios are in Benchmarks/Scenarios/)"
        )
        let base = (path as NSString).lastPathComponent
        let name = base.hasSuffix(".json") ? String(base.dropLast(5)) : base
        return try load(json: data, defaultName: name, file: path)
    }

    /// The scenario files a list of command-line paths names: each file as is, each
    /// directory's `*.json` files (not recursive) in name order.
    ///
    /// - Throws: ``HarnessError`` (`inputUnavailable`) for a path that does not exist or a
    ///   directory without scenario files.
    public static func files(expanding paths: [String]) throws(HarnessError) -> [String] {
        var files: [String] = []
        for path in paths {
            let entries: [String]
            do {
                guard try FileSystem.isDirectory(path) else {
                    files.append(path)
                    continue
                }
                entries = try FileSystem.directoryEntries(path)
            } catch {
                throw HarnessError(
                    .inputUnavailable,
                    file: path,
                    error.kind == .missing ? "no such scenario file or directory; check the path" : error.reason
                )
            }
            let json = entries.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
            guard !json.isEmpty else {
                throw HarnessError(.inputUnavailable, file: path, "the directory holds no *.json scenario files")
            }
            files += json.map { (path as NSString).appendingPathComponent($0) }
        }
        return files
    }

    /// Reads a scenario file strictly, once (``StrictJSON/Document``): its `store` and
    /// `workload` sections decode from the same tree as the rest of the file.
    private static func decode(json data: Data, defaultName: String) throws(HarnessError) -> Scenario {
        let document: StrictJSON.Document
        do {
            document = try StrictJSON.Document(bytes: Array(data))
        } catch {
            switch error {
            case .notJSON(let located, let parser):
                throw HarnessError(
                    .invalidScenario,
                    "the file is not valid JSON\(located.map { ": " + $0 } ?? " (\(parser.localizedDescription))")"
                )
            case .problem(let problem): throw HarnessError(.invalidScenario, problem)
            case .shape(let error, _): throw HarnessError(.invalidScenario, "\(error)")
            case .reader(let error): throw HarnessError(.invalidScenario, "\(error)")
            }
        }
        guard case .object(let members) = document.root else {
            throw HarnessError(
                .invalidScenario,
                "the top level must be a JSON object like {\"name\": \"x\", \"store\": {}, \"workload\": {}}"
            )
        }
        // Keys are unique here: the document refused a repeated one.
        let dictionary = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        if let unknown = dictionary.keys.sorted().first(where: { !jsonKeys.contains($0) }) {
            throw .invalidField(unknown, "unknown key; known keys are \(jsonKeys.joined(separator: ", "))")
        }
        var scenario = Scenario(name: defaultName)
        if let name = dictionary["name"] {
            guard case .string(let text) = name else { throw .invalidField("name", "must be a string") }
            guard !ControlCharacters.contains(text) else {
                throw .invalidField(
                    "name",
                    "holds a control character (NUL, TAB, ESC, …); names reach terminals, CSV and HTML"
                )
            }
            scenario.name = text
        }
        if let label = dictionary["label"] {
            guard case .string(let text) = label, !text.allSatisfy(\.isWhitespace) else {
                throw .invalidField(
                    "label",
                    "must be a non-empty string naming the configuration, e.g. \"limit 100, our filter\""
                )
            }
            guard !ControlCharacters.contains(text) else {
                throw .invalidField(
                    "label",
                    "holds a control character (NUL, TAB, ESC, …); labels reach terminals, CSV and HTML"
                )
            }
            scenario.label = text
        }
        if let description = dictionary["description"] {
            guard case .string(let text) = description else { throw .invalidField("description", "must be a string") }
            guard !ControlCharacters.contains(text) else {
                throw .invalidField("description", "holds a control character (NUL, TAB, ESC, …); use plain text")
            }
            scenario.description = text
        }
        if let store = dictionary["store"] {
            guard case .object = store else {
                throw .invalidField("store", "must be a JSON object of store settings, e.g. {\"partitions\": 4}")
            }
            do {
                scenario.store = try StoreConfiguration.load(from: document, at: "store")
            } catch let error as StoreError {
                throw .invalidField("store", error.message)
            } catch {
                throw .invalidField("store", "\(error)")
            }
        }
        if let slo = dictionary["slo"] {
            guard case .array(let expressions) = slo else {
                throw .invalidField(
                    "slo",
                    "must be a list of SLO expressions like --slo's, e.g. [\"drain_latency_corrected_p99_ns<100ms\"]"
                )
            }
            for (index, expression) in expressions.enumerated() {
                guard case .string(let text) = expression, !text.allSatisfy(\.isWhitespace) else {
                    throw .invalidField("slo[\(index)]", "must be a non-empty string such as \"error_rate<0.1%\"")
                }
                guard !ControlCharacters.contains(text) else {
                    throw .invalidField(
                        "slo[\(index)]",
                        "holds a control character (NUL, TAB, ESC, …); write COLUMN<BOUND"
                    )
                }
                scenario.slo.append(text)
            }
        }
        if let target = dictionary["target"] {
            guard case .object = target else {
                throw .invalidField("target", "must be a JSON object describing a target (docs/file-formats.md)")
            }
            scenario.target = target.sortedCompactText
        }
        if let workload = dictionary["workload"] {
            guard case .object = workload else {
                throw .invalidField(
                    "workload",
                    "must be a JSON object of workload settings, e.g. {\"pager\": \"streaming\"}"
                )
            }
            do {
                scenario.workload = try document.decode(Workload.self, at: "workload", prefix: "workload")
            } catch {
                switch error {
                case .reader(let error as HarnessError): throw error
                // The path, what goes there and what the file has (a number that does not fit
                // its field included), not JSONDecoder's "The given data was not valid JSON."
                case .shape(_, let shape?): throw .invalidField(shape.path, shape.problem)
                case .shape(let error, nil): throw .invalidField("workload", "\(error)")
                case .reader(let error): throw .invalidField("workload", "\(error)")
                case .notJSON, .problem: throw .invalidField("workload", "\(error)")
                }
            }
        }
        return scenario
    }
}
