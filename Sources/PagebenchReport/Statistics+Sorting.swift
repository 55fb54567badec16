extension Statistics {
    /// `values` in ascending order, exactly as `values.sorted()` orders them.
    ///
    /// Both are stable sorts by `<`, so they agree element for element (equal values, such as
    /// `-0.0` and `0.0`, keep their order). This one is not generic: in a debug build the
    /// standard library's sort runs unspecialized, every comparison and copy through witness
    /// tables, and sorting was 11 % of the CPU of the whole Swift suite (a check's bootstrap
    /// sorts 10,000 ratios per metric). Values with a NaN, which `<` does not order, are
    /// left to the standard library so that even their order stays the same.
    static func ascending(_ values: [Double]) -> [Double] {
        let count = values.count
        guard count > 1, !values.contains(where: \.isNaN) else { return values.sorted() }
        var sorted = values
        var scratch = values
        sorted.withUnsafeMutableBufferPointer { buffer in
            scratch.withUnsafeMutableBufferPointer { scratchBuffer in
                // Typed pointers: their subscripts are transparent, so even an unoptimized
                // build reads and writes the doubles directly.
                guard let first = buffer.baseAddress, let other = scratchBuffer.baseAddress else { return }
                if mergeSort(first, other, count) {
                    first.update(from: other, count: count)
                }
            }
        }
        return sorted
    }

    /// Runs of `run` values sorted by insertion, then merged pairwise, back and forth between
    /// the two buffers; the left value first on ties. Returns true when the result ended in
    /// `other`.
    private static func mergeSort(
        _ values: UnsafeMutablePointer<Double>,
        _ other: UnsafeMutablePointer<Double>,
        _ count: Int
    ) -> Bool {
        let run = 16
        var start = 0
        while start < count {
            let end = min(start + run, count)
            var next = start + 1
            while next < end {
                let value = values[next]
                var slot = next
                while slot > start, value < values[slot - 1] {
                    values[slot] = values[slot - 1]
                    slot -= 1
                }
                values[slot] = value
                next += 1
            }
            start = end
        }
        var source = values
        var target = other
        var inOther = false
        var width = run
        while width < count {
            var low = 0
            while low < count {
                let middle = min(low + width, count)
                let high = min(low + 2 * width, count)
                var left = low
                var right = middle
                var out = low
                while left < middle, right < high {
                    if source[right] < source[left] {
                        target[out] = source[right]
                        right += 1
                    } else {
                        target[out] = source[left]
                        left += 1
                    }
                    out += 1
                }
                while left < middle {
                    target[out] = source[left]
                    left += 1
                    out += 1
                }
                while right < high {
                    target[out] = source[right]
                    right += 1
                    out += 1
                }
                low = high
            }
            swap(&source, &target)
            inOther.toggle()
            width *= 2
        }
        return inOther
    }
}
