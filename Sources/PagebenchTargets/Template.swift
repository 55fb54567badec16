import PagebenchWire

/// What a drain's request fills a target's templates with (docs/file-formats.md,
/// placeholders).
package struct TemplateBindings: Sendable {
    /// `${partition}`: the drain's partition key value (nil for scans).
    package var partition: JSONValue?
    /// `${limit}`: the workload's limit.
    package var limit: Int?
    /// `${segment}` and `${totalSegments}`: a `segment:N` read's segment.
    package var segment: Int?
    package var totalSegments: Int?
    /// `${continuation}`: the previous page's continuation (nil on a drain's first page).
    package var continuation: String?
    /// `${filter}`: the workload's filter as `--filter` spells it (nil without one).
    package var filter: String?
    /// `${filter}` in place of ``filter``: a value of the target's `filters` (verify, `pages`).
    package var filterValue: JSONValue?
    /// `${reverse}`: the workload's `reverse`.
    package var reverse: Bool = false

    package init() {}

    func value(_ placeholder: Placeholder) -> JSONValue {
        switch placeholder {
        case .partition: partition ?? .null
        case .limit: limit.map { .number(String($0)) } ?? .null
        case .segment: segment.map { .number(String($0)) } ?? .null
        case .totalSegments: totalSegments.map { .number(String($0)) } ?? .null
        case .continuation: continuation.map { .string($0) } ?? .null
        case .filter: filterValue ?? filter.map { .string($0) } ?? .null
        case .reverse: .bool(reverse)
        }
    }

    /// The placeholder's text in a string (empty for an absent value).
    func text(_ placeholder: Placeholder) -> String {
        switch value(placeholder) {
        case .null: ""
        case .string(let string): string
        case .number(let number): number
        case .bool(let bool): bool ? "true" : "false"
        case let other: other.text
        }
    }
}

/// The placeholders a request template may hold.
package enum Placeholder: String, Sendable, Hashable, CaseIterable {
    case partition, limit, segment, totalSegments, continuation, filter, reverse
}

/// A string with `${name}` placeholders, split once when the target file is loaded so that a
/// request costs only concatenation.
package struct TextTemplate: Sendable, Hashable {
    enum Part: Sendable, Hashable {
        case literal(String)
        case placeholder(Placeholder)
        case environment(String)
    }

    let parts: [Part]

    /// Splits `text`. With `environment`, every `${NAME}` is an environment variable
    /// (headers); otherwise each must be a ``Placeholder``.
    ///
    /// - Throws: a message naming the unknown placeholder or the unterminated `${`.
    init(_ text: String, environment: Bool) throws(TargetFileError) {
        var parts: [Part] = []
        var rest = Substring(text)
        while let open = rest.range(of: "${") {
            if open.lowerBound > rest.startIndex { parts.append(.literal(String(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                throw TargetFileError("'\(text)' has a '${' without its closing '}'")
            }
            let name = String(rest[open.upperBound..<close])
            if environment {
                guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                    throw TargetFileError("'${\(name)}' is not an environment variable name (letters, digits, _)")
                }
                parts.append(.environment(name))
            } else {
                guard let placeholder = Placeholder(rawValue: name) else {
                    throw TargetFileError(
                        "unknown placeholder '${\(name)}'; known: "
                            + Placeholder.allCases.map { "${\($0.rawValue)}" }.joined(separator: ", ")
                    )
                }
                parts.append(.placeholder(placeholder))
            }
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { parts.append(.literal(String(rest))) }
        self.parts = parts
    }

    /// The placeholders used.
    var placeholders: Set<Placeholder> {
        Set(parts.compactMap { if case .placeholder(let placeholder) = $0 { placeholder } else { nil } })
    }

    /// The environment variables used.
    var environmentNames: [String] {
        parts.compactMap { if case .environment(let name) = $0 { name } else { nil } }
    }

    /// The one placeholder the whole string is, if it is exactly one.
    var soleplaceholder: Placeholder? {
        if parts.count == 1, case .placeholder(let placeholder) = parts[0] { return placeholder }
        return nil
    }

    /// The text with placeholders filled; `encode` transforms each substituted value (URL
    /// percent-encoding in a path).
    func render(
        _ bindings: TemplateBindings,
        environment: [String: String] = [:],
        encode: (String) -> String = { $0 }
    )
        -> String
    {
        var text = ""
        for part in parts {
            switch part {
            case .literal(let literal): text += literal
            case .placeholder(let placeholder): text += encode(bindings.text(placeholder))
            case .environment(let name): text += environment[name] ?? ""
            }
        }
        return text
    }
}

/// A JSON value whose strings may hold placeholders: a string that is exactly one
/// placeholder becomes its typed value (`"${limit}"` → `10`, `"${continuation}"` → a
/// string or `null`); placeholders inside longer strings are substituted as text.
package indirect enum JSONTemplate: Sendable, Hashable {
    case fixed(JSONValue)
    case text(TextTemplate)
    case array([JSONTemplate])
    case object([String: JSONTemplate])

    init(_ value: JSONValue) throws(TargetFileError) {
        switch value {
        case .string(let string) where string.contains("${"):
            self = .text(try TextTemplate(string, environment: false))
        case .array(let elements):
            var templates: [JSONTemplate] = []
            for element in elements { templates.append(try JSONTemplate(element)) }
            self =
                templates.allSatisfy { if case .fixed = $0 { true } else { false } } ? .fixed(value) : .array(templates)
        case .object(let members):
            var templates: [String: JSONTemplate] = [:]
            for (key, member) in members { templates[key] = try JSONTemplate(member) }
            self =
                templates.values.allSatisfy { if case .fixed = $0 { true } else { false } }
                ? .fixed(value) : .object(templates)
        default:
            self = .fixed(value)
        }
    }

    /// The placeholders used anywhere in the value.
    var placeholders: Set<Placeholder> {
        switch self {
        case .fixed: []
        case .text(let template): template.placeholders
        case .array(let elements): elements.reduce(into: []) { $0.formUnion($1.placeholders) }
        case .object(let members): members.values.reduce(into: []) { $0.formUnion($1.placeholders) }
        }
    }

    /// The value with placeholders filled.
    func render(_ bindings: TemplateBindings) -> JSONValue {
        switch self {
        case .fixed(let value): value
        case .text(let template):
            if let placeholder = template.soleplaceholder {
                bindings.value(placeholder)
            } else {
                .string(template.render(bindings))
            }
        case .array(let elements): .array(elements.map { $0.render(bindings) })
        case .object(let members): .object(members.mapValues { $0.render(bindings) })
        }
    }
}
