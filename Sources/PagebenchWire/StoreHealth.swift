/// The body of `GET /health` (written by the server, read by the client).
package struct StoreHealth: Sendable, Hashable, Codable {
    /// `ok`.
    package var status: String
    /// ``PagebenchStore/StoreConfiguration/configurationHash`` of the server's store.
    package var configurationHash: String
    package var partitions: Int
    /// Items in the whole store.
    package var items: Int
    /// ``PagebenchStore/StoreConfiguration/canonicalText`` of the server's store; nil from a
    /// server that does not send it.
    package var canonical: String?

    package init(status: String, configurationHash: String, partitions: Int, items: Int, canonical: String? = nil) {
        self.status = status
        self.configurationHash = configurationHash
        self.partitions = partitions
        self.items = items
        self.canonical = canonical
    }
}
