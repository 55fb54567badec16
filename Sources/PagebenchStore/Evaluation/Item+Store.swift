import PagebenchPage

extension Item {
    /// The attributes of an item the synthetic store made, which always carries them: what
    /// the store and its front ends (REST, DynamoDB, GraphQL, `items`) read and write.
    ///
    /// - Precondition: the item has attributes; a real target's item has none, and no front
    ///   end serves one (they serve only the store's pages).
    @inlinable
    public var storeAttributes: Attributes {
        guard let attributes else { preconditionFailure("an item without attributes is not the synthetic store's") }
        return attributes
    }

    /// The item's payload: exactly ``Item/sizeBytes`` deterministic bytes, generated on
    /// access from its fingerprint (nothing is allocated); nil without attributes (a real
    /// target's item).
    public var payload: Payload? { attributes.map { Payload(seed: $0.fingerprint, count: sizeBytes) } }
}
