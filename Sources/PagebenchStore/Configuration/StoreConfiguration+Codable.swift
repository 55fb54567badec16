import Foundation
import PagebenchBase

extension StoreConfiguration: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case partitions, itemsPerPartition, itemSize, selectivity, clustering, scanBudgetBytes
        case budgetBoundary, exactEnd, tokenPolicy, defaultLimit, seed, serviceTime, throttleRate, faultRate
        case writes, continuation
    }

    /// Decodes a configuration; every missing key takes its ``default`` value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var value = StoreConfiguration.default
        func decode<T: Decodable>(
            _ type: T.Type,
            _ key: CodingKeys,
            into path: WritableKeyPath<StoreConfiguration, T>
        )
            throws
        {
            if let decoded = try container.decodeIfPresent(type, forKey: key) { value[keyPath: path] = decoded }
        }
        try decode(Int.self, .partitions, into: \.partitions)
        try decode(ItemsPerPartition.self, .itemsPerPartition, into: \.itemsPerPartition)
        try decode(ItemSizeDistribution.self, .itemSize, into: \.itemSize)
        try decode(Double.self, .selectivity, into: \.selectivity)
        try decode(Clustering.self, .clustering, into: \.clustering)
        try decode(Int.self, .scanBudgetBytes, into: \.scanBudgetBytes)
        try decode(BudgetBoundary.self, .budgetBoundary, into: \.budgetBoundary)
        try decode(ExactEnd.self, .exactEnd, into: \.exactEnd)
        try decode(TokenPolicy.self, .tokenPolicy, into: \.tokenPolicy)
        try decode(Int.self, .defaultLimit, into: \.defaultLimit)
        try decode(UInt64.self, .seed, into: \.seed)
        try decode(ServiceTimeModel.self, .serviceTime, into: \.serviceTime)
        try decode(Double.self, .throttleRate, into: \.throttleRate)
        try decode(Double.self, .faultRate, into: \.faultRate)
        value.writes = try container.decodeIfPresent(WritesConfiguration.self, forKey: .writes)
        if let text = try container.decodeIfPresent(String.self, forKey: .continuation) {
            value.continuation = try ContinuationMode(parsing: text)
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(partitions, forKey: .partitions)
        try container.encode(itemsPerPartition, forKey: .itemsPerPartition)
        try container.encode(itemSize, forKey: .itemSize)
        try container.encode(selectivity, forKey: .selectivity)
        try container.encode(clustering, forKey: .clustering)
        try container.encode(scanBudgetBytes, forKey: .scanBudgetBytes)
        try container.encode(budgetBoundary, forKey: .budgetBoundary)
        try container.encode(exactEnd, forKey: .exactEnd)
        try container.encode(tokenPolicy, forKey: .tokenPolicy)
        try container.encode(defaultLimit, forKey: .defaultLimit)
        try container.encode(seed, forKey: .seed)
        try container.encode(serviceTime, forKey: .serviceTime)
        try container.encode(throttleRate, forKey: .throttleRate)
        try container.encode(faultRate, forKey: .faultRate)
        try container.encodeIfPresent(writes, forKey: .writes)
        try container.encode(continuation.rawValue, forKey: .continuation)
    }

    /// The configuration as pretty, key-sorted JSON (a starting point for a scenario file).
    public func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// Decodes and validates a JSON configuration. Missing keys take their defaults;
    /// unknown keys are rejected (they are almost always typos).
    ///
    /// - Throws: ``StoreError`` with code `invalidConfiguration` naming the problem.
    public static func load(json data: Data) throws -> StoreConfiguration {
        let document: StrictJSON.Document
        do {
            document = try StrictJSON.Document(bytes: Array(data))
        } catch {
            throw StoreError.invalidConfiguration(Self.words(for: error))
        }
        return try load(from: document)
    }

    /// Decodes and validates a configuration already read strictly: the whole `document`, or
    /// the value of its top-level `key` (a scenario's `store` section, read with the rest of
    /// its file: not serialised and parsed again). The one place a configuration from a file
    /// is validated.
    ///
    /// - Throws: ``StoreError`` with code `invalidConfiguration` naming the problem, with
    ///   paths inside the configuration (`serviceTime.base`).
    public static func load(from document: StrictJSON.Document, at key: String? = nil) throws -> StoreConfiguration {
        let node = key.map { document.root.member($0) ?? .object([]) } ?? document.root
        guard case .object(let members) = node else {
            throw StoreError.invalidConfiguration("the top level must be a JSON object like {\"partitions\": 4}")
        }
        let known = Set(CodingKeys.allCases.map(\.rawValue))
        if let unknown = members.map(\.key).sorted().first(where: { !known.contains($0) }) {
            throw StoreError.invalidConfiguration(
                "unknown key \"\(unknown)\"; known keys are \(known.sorted().joined(separator: ", "))"
            )
        }
        let configuration: StoreConfiguration
        do {
            configuration = try document.decode(StoreConfiguration.self, at: key)
        } catch .reader(let error as StoreError) {
            throw error
        } catch {
            throw StoreError.invalidConfiguration(Self.words(for: error))
        }
        try configuration.validate()
        // Keys inside nested objects (serviceTime, …) that decoding ignored: every key the
        // configuration knows comes back when it is encoded, so one that does not is unknown.
        if let unknown = document.unknownKey(of: configuration, at: key) {
            throw StoreError.invalidConfiguration(unknown)
        }
        return configuration
    }

    /// A strict read's error as the message of an `invalidConfiguration` error.
    private static func words(for error: StrictJSON.LoadError) -> String {
        switch error {
        case .notJSON(let located, let parser):
            "the file is not valid JSON\(located.map { ": " + $0 } ?? " (\(parser.localizedDescription))")"
        case .problem(let problem): problem
        // The path, what goes there and what the file has (a number that does not fit its
        // field included), not JSONDecoder's "The given data was not valid JSON."
        case .shape(let error, let shape): shape?.description ?? "\(error)"
        case .reader(let error): "\(error)"
        }
    }

    /// Reads, decodes and validates a JSON configuration file.
    public static func load(contentsOf url: URL) throws -> StoreConfiguration {
        try load(json: Data(try FileSystem.readBytes(url.path)))
    }
}
