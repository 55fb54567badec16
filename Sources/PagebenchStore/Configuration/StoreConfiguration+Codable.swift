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
        func decode<T: Decodable>(_ type: T.Type, _ key: CodingKeys, into path: WritableKeyPath<StoreConfiguration, T>)
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
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
        } catch {
            throw StoreError.invalidConfiguration("the file is not valid JSON\(StrictJSON.syntaxError(in: Array(data)).map { ": " + $0 } ?? " (\(error.localizedDescription))")")
        }
        if let problem = StrictJSON.firstProblem(in: Array(data)) { throw StoreError.invalidConfiguration(problem) }
        guard let dictionary = object as? [String: Any] else {
            throw StoreError.invalidConfiguration("the top level must be a JSON object like {\"partitions\": 4}")
        }
        let known = Set(CodingKeys.allCases.map(\.rawValue))
        if let unknown = dictionary.keys.sorted().first(where: { !known.contains($0) }) {
            throw StoreError.invalidConfiguration(
                "unknown key \"\(unknown)\"; known keys are \(known.sorted().joined(separator: ", "))")
        }
        let configuration: StoreConfiguration
        do {
            configuration = try JSONDecoder().decode(StoreConfiguration.self, from: data)
        } catch let error as StoreError {
            throw error
        } catch let error as DecodingError {
            // The path, what goes there and what the file has (a number that does not fit
            // its field included), not JSONDecoder's "The given data was not valid JSON."
            throw StoreError.invalidConfiguration(
                StrictJSON.explain(error, decoding: StoreConfiguration.self, from: Array(data))?.description ?? "\(error)")
        } catch {
            throw StoreError.invalidConfiguration("\(error)")
        }
        try configuration.validate()
        // Keys inside nested objects (serviceTime, …) that decoding ignored: every key the
        // configuration knows comes back when it is encoded, so one that does not is unknown.
        if let encoded = try? JSONSerialization.jsonObject(with: JSONEncoder().encode(configuration)) as? [String: Any],
            let unknown = StrictJSON.unknownKey(in: dictionary, known: encoded)
        {
            throw StoreError.invalidConfiguration(unknown)
        }
        return configuration
    }

    /// Reads, decodes and validates a JSON configuration file.
    public static func load(contentsOf url: URL) throws -> StoreConfiguration {
        try load(json: Data(try FileSystem.readBytes(url.path)))
    }
}
