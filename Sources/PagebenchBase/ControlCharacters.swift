/// Control characters (C0, DEL and C1: NUL, TAB, ESC, CR, …) in text pagebench reads: they
/// would corrupt a terminal, a CSV cell or an HTML page the text reaches, so names and text
/// cells that hold one are refused at load (``contains(_:)``), and a message that quotes
/// input shows them as escapes (``escaped(_:)``), never raw (`ESC [2J` would clear the screen).
public enum ControlCharacters {
    /// Whether `scalar` is a C0 control, DEL or a C1 control.
    @inlinable
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Whether `text` holds a control character.
    public static func contains(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.contains(where: isControl)
    }

    /// `text` with every control character but the line feed written as a Swift escape
    /// (`\u{1B}`, `\u{0}`): safe to print, and says what was there.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) && $0 != "\n" }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) && scalar != "\n" {
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
