/// The body of `GET /health` (written by the server, read by the client).
public struct StoreHealth: Sendable, Hashable, Codable {
    /// `ok`.
    public var status: String
    /// ``PagebenchStore/StoreConfiguration/configurationHash`` of the server's store.
    public var configurationHash: String
    public var partitions: Int
    /// Items in the whole store.
    public var items: Int
    /// ``PagebenchStore/StoreConfiguration/canonicalText`` of the server's store; nil from a
    /// server that does not send it.
    public var canonical: String?

    public init(status: String, configurationHash: String, partitions: Int, items: Int, canonical: String? = nil) {
        self.status = status
        self.configurationHash = configurationHash
        self.partitions = partitions
        self.items = items
        self.canonical = canonical
    }
}
