import PagebenchBase

/// Small parsing helpers shared by the text forms of configuration values
/// (`fixed:1024`, `uniform:1ms-5ms`, `lognormal:median=512,sigma=1`), used both by the
/// JSON configuration file and by the command line.
enum SpecText {
    /// Splits `kind:rest` at the first colon; `rest` is empty when there is no colon.
    static func kindAndArguments(_ text: String) -> (kind: String, arguments: String) {
        let trimmed = text.trimmingWhitespace()
        guard let colon = trimmed.firstIndex(of: ":") else { return (trimmed.lowercased(), "") }
        return (
            String(trimmed[..<colon]).lowercased(),
            String(trimmed[trimmed.index(after: colon)...]).trimmingWhitespace()
        )
    }

    /// Parses `a-b` into two parts (the separator is the first `-` after the first character).
    static func pair(_ text: String, field: String, example: String) throws(StoreError) -> (String, String) {
        guard text.count > 1, let dash = text.dropFirst().firstIndex(of: "-") else {
            throw .invalidConfiguration("\(field): expected a range like '\(example)', got '\(text)'")
        }
        return (String(text[..<dash]), String(text[text.index(after: dash)...]))
    }

    /// Parses `key=value,key=value` into a dictionary with lowercased keys.
    ///
    /// - Throws: ``StoreError`` for an empty element (`a=1,,b=2`), an element without `=`, an
    ///   unknown key, or a key given twice (the last one would silently win).
    static func keyValues(
        _ text: String,
        field: String,
        allowed: Set<String>,
        example: String
    ) throws(StoreError) -> [String: String] {
        var result: [String: String] = [:]
        for part in try list(text, field: field, example: example) {
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard pieces.count == 2 else {
                throw .invalidConfiguration("\(field): expected key=value pairs like '\(example)', got '\(part)'")
            }
            let key = String(pieces[0]).trimmingWhitespace().lowercased()
            guard allowed.contains(key) else {
                throw .invalidConfiguration(
                    "\(field): unknown key '\(key)'; expected \(allowed.sorted().joined(separator: ", ")) as in '\(example)'"
                )
            }
            guard result[key] == nil else {
                throw .invalidConfiguration("\(field): '\(key)' is given twice; give each key once, as in '\(example)'")
            }
            result[key] = String(pieces[1]).trimmingWhitespace()
        }
        return result
    }

    /// The elements of a `separator`-separated list, trimmed (``ListText``).
    ///
    /// - Throws: ``StoreError`` naming `field` for an empty element (`0,,3`, a leading or
    ///   trailing separator, or an empty text): a typo that would otherwise be dropped unseen.
    static func list(
        _ text: String,
        field: String,
        example: String,
        separator: Character = ","
    ) throws(StoreError) -> [String] {
        do {
            return try ListText.elements(of: text, separator: separator)
        } catch {
            throw .invalidConfiguration("\(field): " + error.problem(example: example, separator: separator))
        }
    }

    static func integer(_ text: String, field: String) throws(StoreError) -> Int {
        let cleaned = text.trimmingWhitespace().replacingUnderscores()
        guard let value = Int(cleaned) else {
            throw .invalidConfiguration("\(field): '\(text)' is not a whole number")
        }
        return value
    }

    static func number(_ text: String, field: String) throws(StoreError) -> Double {
        guard let value = Double(text.trimmingWhitespace()), value.isFinite else {
            throw .invalidConfiguration("\(field): '\(text)' is not a finite number")
        }
        return value
    }

    /// Parses a duration with a unit: `250ns`, `40us` (or `µs`), `2ms`, `1.5s`. Returns nanoseconds.
    static func durationNanoseconds(_ text: String, field: String) throws(StoreError) -> Int {
        if let nanoseconds = DurationText.nanoseconds(text)?.rounded() {
            guard nanoseconds < 1e15 else {
                throw .invalidConfiguration("\(field): duration '\(text)' is too long (at most about 11 days)")
            }
            return Int(nanoseconds)
        }
        throw .invalidConfiguration(
            "\(field): '\(text)' is not a duration; write a non-negative number with a unit: \(DurationText.unitList) (e.g. 2ms)"
        )
    }

    /// The canonical text of a nanosecond duration, as short as exact.
    static func durationText(_ nanoseconds: Int) -> String {
        if nanoseconds != 0 && nanoseconds % 1_000_000_000 == 0 { return "\(nanoseconds / 1_000_000_000)s" }
        if nanoseconds != 0 && nanoseconds % 1_000_000 == 0 { return "\(nanoseconds / 1_000_000)ms" }
        if nanoseconds != 0 && nanoseconds % 1_000 == 0 { return "\(nanoseconds / 1_000)us" }
        return "\(nanoseconds)ns"
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }

    fileprivate func replacingUnderscores() -> String {
        String(unicodeScalars.filter { $0 != "_" })
    }
}
