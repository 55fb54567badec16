import Foundation
import PagebenchBase
import PagebenchStore

/// One benchmark: a store configuration (the store's JSON format) and a workload, under a
/// name. The JSON form is a scenario file (docs/file-formats.md):
///
/// ```json
/// { "name": "default", "description": "...", "store": { "partitions": 64 }, "workload": { "pager": "streaming" } }
/// ```
///
/// Every key is optional; missing ones take their defaults, unknown ones are rejected.
public struct Scenario: Sendable, Hashable {
    /// The name in result rows (defaults to the file name without `.json`).
    public var name: String
    /// One line saying what the scenario shows.
    public var description: String
    public var store: StoreConfiguration
    public var workload: Workload
    /// The scenario's `target` section (a real API to page, docs/file-formats.md) as compact
    /// JSON text, or nil. The harness does not read it: `pagebench run` loads it as a target.
    public var target: String?
    /// The scenario's SLOs (`slo`): expressions in `--slo`'s syntax (`drain_latency_corrected_p99_ns<100ms`),
    /// as written. The harness does not judge rows: `pagebench run` and `knee` parse these
    /// (a bad one is an invalid scenario naming `slo[i]`) and judge this scenario's rows on
    /// them and on every `--slo`.
    public var slo: [String] = []
    /// What a person calls this configuration (the scenario file's `label`, or one
    /// ``labelled(_:)`` derived); nil until then. Rows carry it in `label`; it is not part of
    /// ``configurationHash``.
    public var label: String?

    public init(
        name: String,
        description: String = "",
        store: StoreConfiguration = .default,
        workload: Workload = Workload()
    ) {
        self.name = name
        self.description = description
        self.store = store
        self.workload = workload
    }

    /// The built-in scenario `pagebench run` runs without arguments; identical to
    /// `Benchmarks/Scenarios/default.json` (a test checks it). The default store (64
    /// partitions × 10,000 items, 10 % matching, 1 MiB budget), each drain a full query of a
    /// uniformly chosen partition with the `match` filter at the default limit, through the
    /// streaming pager, at 1, 8 and 64 pagers, 2000 drains (about 2 million pages) each after
    /// 0.3 s of warm-up.
    public static let `default`: Scenario = {
        var workload = Workload()
        workload.pager = .streaming
        workload.concurrency = [1, 8, 64]
        workload.read = .partition(.uniform)
        workload.filter = .matching
        workload.bound = .drains(2000)
        workload.warmupSeconds = 0.3
        return Scenario(
            name: "default",
            description:
                "Full queries of uniformly chosen partitions with a 10 % filter at limit 10, streaming pager, 1/8/64 pagers",
            store: .default,
            workload: workload
        )
    }()

    /// Whether this is the built-in scenario (whatever flags changed in it), not one of a
    /// file: its name and description are the built-in's.
    public var isBuiltInDefault: Bool {
        name == Self.default.name && description == Self.default.description
    }

    /// Checks the store configuration and the workload.
    ///
    /// - Throws: ``HarnessError`` (`invalidScenario`) naming the field (`store: ...`, `workload.limit: ...`).
    public func validate() throws(HarnessError) {
        try validate(includingStore: true)
    }

    /// ``validate()``, leaving out the store when it was validated as it was read.
    func validate(includingStore: Bool) throws(HarnessError) {
        guard !name.isEmpty, !name.contains(where: { $0 == "," || $0 == "\n" || $0 == "\"" }) else {
            throw .invalidField("name", "must be non-empty and contain no comma, quote or line break, got '\(name)'")
        }
        if includingStore {
            do {
                try store.validate()
            } catch let error as StoreError {
                throw .invalidField("store", error.message)
            } catch {
                throw .invalidField("store", "\(error)")
            }
        }
        try workload.validate(store: store)
    }

    /// The stable identity of the whole configuration (store and workload, concurrency and
    /// repetitions excepted): 16 hex digits of FNV-1a-64, the CSV `config_hash`.
    public var configurationHash: String {
        StableHash.hex(StableHash.fnv1a64(store.canonicalText + "|" + workload.canonicalText))
    }

    /// The scenario as pretty, key-sorted JSON: the scenario file format.
    public func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var object: [String: AnyEncodable] = [
            "name": AnyEncodable(name), "store": AnyEncodable(store), "workload": AnyEncodable(workload),
        ]
        if !description.isEmpty { object["description"] = AnyEncodable(description) }
        if !slo.isEmpty { object["slo"] = AnyEncodable(slo) }
        if let label { object["label"] = AnyEncodable(label) }
        let text = String(decoding: try encoder.encode(object), as: UTF8.self)
        guard let target else { return text + "\n" }
        // The target section is kept as the JSON it was given: splice it in as the last key.
        guard text.hasSuffix("}") else { return text + "\n" }
        return String(text.dropLast()).trimmingCharacters(in: .whitespacesAndNewlines) + ",\n  \"target\" : " + target
            + "\n}\n"
    }
}

/// Type erasure for encoding a heterogeneous JSON object.
private struct AnyEncodable: Encodable {
    let body: @Sendable (any Encoder) throws -> Void
    init<T: Encodable & Sendable>(_ value: T) { body = { try value.encode(to: $0) } }
    func encode(to encoder: any Encoder) throws { try body(encoder) }
}
