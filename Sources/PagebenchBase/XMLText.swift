/// Text made safe for an XML 1.0 document (the JUnit reports of `check` and `verify`): markup characters as entities,
/// and every character XML 1.0 cannot hold, or that would corrupt a terminal showing the
/// file, as a visible escape.
///
/// Labels and messages come from the results files, where anything may stand, so nothing is
/// written raw: `&`, `<`, `>`, `"` and `'` become entities (so `]]>` cannot end anything and
/// a quote cannot end an attribute); C0 controls other than tab, line feed and carriage
/// return, DEL, C1 controls and the non-characters U+FFFE and U+FFFF become `\u{1B}`-style
/// text (XML 1.0 has no way to write them, not even as a character reference); in an
/// attribute, tab, line feed and carriage return become character references so that a
/// reader's attribute-value normalisation keeps them, and a carriage return in content does
/// too (a reader would turn a raw one into a line feed).
package enum XMLText {
    /// `text` as element content.
    package static func content(_ text: String) -> String { escaped(text, attribute: false) }

    /// `text` as an attribute value, to stand between double quotes.
    package static func attribute(_ text: String) -> String { escaped(text, attribute: true) }

    private static func escaped(_ text: String, attribute: Bool) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\r": result += "&#13;"
            case "\t": result += attribute ? "&#9;" : "\t"
            case "\n": result += attribute ? "&#10;" : "\n"
            default:
                if ControlCharacters.isControl(scalar) || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
