import PagebenchBase
import PagebenchWire

/// The known secret values of a target run (T4) and the one function that hides them:
/// header values read from `${VAR}` (and each variable's value), values of headers named
/// like credentials (`Authorization`, `Cookie`, `X-Api-Key`, …), and the AWS access key,
/// secret key and session token. ``TargetSource`` passes every message it lets out through
/// it, so that nothing a server sends back (a 403 body echoing the `Authorization` header,
/// a continuation holding a token) reaches an error message, log, CSV or shard file.
///
/// Each secret is matched as written, JSON-escaped (`\/`, `\"`, `\u00e9`),
/// percent-encoded, and as a server that reads header bytes as ISO-8859-1 echoes it: the
/// ways a server quotes text back. Values shorter than
/// ``minimumLength`` are not masked: no credential is that short, and masking `7` would
/// blank out every 7 of a message.
public struct SecretMask: Sendable, Hashable {
    /// What a secret is replaced by.
    public static let replacement = "[masked]"
    /// The shortest value masked.
    public static let minimumLength = 4

    /// Every form of every secret, longest first.
    public let forms: [String]

    /// The mask of `secrets` (empty and short ones ignored).
    public init(_ secrets: some Sequence<String>) {
        var forms: Set<String> = []
        for secret in secrets where secret.count >= Self.minimumLength {
            forms.insert(PercentEncoding.encoded(secret))
            // As sent, and as a server that reads header bytes as ISO-8859-1 has it (`é` → `Ã©`).
            for text in [secret, String(String.UnicodeScalarView(secret.utf8.map(Unicode.Scalar.init)))] {
                var quoted = ""
                JSONValue.quote(text, into: &quoted)
                for escaped in [text, String(quoted.dropFirst().dropLast()), Self.unicodeEscaped(text)] {
                    forms.insert(escaped)
                    forms.insert(escaped.replacingOccurrences(of: "/", with: "\\/"))
                }
            }
        }
        self.forms = forms.sorted { ($0.utf8.count, $0) > ($1.utf8.count, $1) }
    }

    /// The mask of what `target`'s requests carry: its headers as sent (`rendered`, in the
    /// order of the target's headers) and the AWS credentials, if any.
    init(target: Target, rendered: [(name: String, value: String)], environment: [String: String], credentials: AWSCredentials?) {
        var secrets: [String] = []
        for ((name, template), (_, value)) in zip(target.headers, rendered) {
            let variables = template.environmentNames
            if !variables.isEmpty || Self.isCredentialHeader(name) { secrets.append(value) }
            secrets += variables.compactMap { environment[$0] }
        }
        if let credentials {
            secrets += [credentials.accessKeyID, credentials.secretAccessKey] + (credentials.sessionToken.map { [$0] } ?? [])
        }
        self.init(secrets)
    }

    /// Whether a header's name says it carries a credential.
    static func isCredentialHeader(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return ["authorization", "proxy-authorization", "cookie"].contains(lowered)
            || ["token", "key", "secret", "auth", "session", "password"].contains { lowered.contains($0) }
    }

    /// The longest form in UTF-8 bytes: how far past a cut a secret can reach.
    public var longestFormBytes: Int { forms.first?.utf8.count ?? 0 }

    /// `text` with every form of every secret replaced by ``replacement``.
    public func callAsFunction(_ text: String) -> String {
        guard !forms.isEmpty else { return text }
        var text = text
        for form in forms where text.contains(form) {
            text = text.replacingOccurrences(of: form, with: Self.replacement)
        }
        return text
    }

    /// The first `limit` characters of text a server sent, masked before it is cut (so that
    /// a secret the cut would halve is masked whole), in quotes with `…` when cut.
    public func excerpt(_ bytes: some Collection<UInt8>, limit: Int = 200) -> String {
        let window = bytes.prefix(limit * 4 + longestFormBytes)  // a character is at most 4 bytes
        let text = self(String(decoding: window, as: UTF8.self))
        let cut = text.count > limit || window.count < bytes.count
        return "'" + String(text.prefix(limit)) + (cut ? "…'" : "'")
    }

    /// Every non-ASCII scalar and every character JSON may escape written `\uXXXX`.
    private static func unicodeEscaped(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII, scalar.value >= 0x20, scalar != "\"", scalar != "\\" {
                escaped.unicodeScalars.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return escaped
    }
}
