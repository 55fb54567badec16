import PagebenchPage

extension Item {
    /// The item's payload: exactly ``Item/sizeBytes`` deterministic bytes, generated on
    /// access from its fingerprint (nothing is allocated).
    public var payload: Payload { Payload(seed: fingerprint, count: sizeBytes) }
}
