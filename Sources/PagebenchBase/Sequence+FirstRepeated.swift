extension Sequence where Element: Hashable {
    /// The first element that an earlier element equals, with the position of its second
    /// appearance; nil when every element is distinct.
    ///
    /// Lists in configuration files name distinct things (concurrency values, hot
    /// partitions, partition keys): a repeated one would make two rows of one identity, or
    /// weigh one choice twice while the configuration hash text says `0+0`. Validation
    /// refuses them with this, naming the field and the value.
    public func firstRepeated() -> (element: Element, offset: Int)? {
        var seen: Set<Element> = []
        for (offset, element) in enumerated() where !seen.insert(element).inserted {
            return (element, offset)
        }
        return nil
    }
}
