import Foundation
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
/// ways a server quotes text back; in any ASCII letter case (a server that lower-cases
/// what it echoes); base64-encoded (standard and URL-safe, with and without padding); and,
/// for a secret that is base64 text itself (`Basic dXNlcjpwYXNz`), decoded. A credential
/// header's value is a secret with and without its scheme word (`Bearer `, `Basic `).
/// Values shorter than
/// ``minimumLength`` are not masked: no credential is that short, and masking `7` would
/// blank out every 7 of a message.
package struct SecretMask: Sendable, Hashable {
    /// What a secret is replaced by.
    package static let replacement = "[masked]"
    /// The shortest value masked.
    package static let minimumLength = 4

    /// Every form of every secret, longest first.
    package let forms: [String]

    /// `forms` in ASCII lower case, as bytes, in the same order: what ``callAsFunction(_:)``
    /// searches for.
    private let foldedForms: [[UInt8]]

    /// The mask of `secrets` (empty and short ones ignored).
    package init(_ secrets: some Sequence<String>) {
        var forms: Set<String> = []
        var expanded: [String] = []
        for secret in secrets where secret.count >= Self.minimumLength {
            expanded.append(secret)
            expanded += Self.encodedForms(of: secret)
        }
        for secret in expanded where secret.count >= Self.minimumLength {
            forms.insert(PercentEncoding.encoded(secret))
            // As sent, and as a server that reads header bytes as ISO-8859-1 has it (`é` → `Ã©`).
            for text in [secret, String(String.UnicodeScalarView(secret.utf8.map(Unicode.Scalar.init)))] {
                var quoted = ""
                JSONString.quote(text, into: &quoted)
                for escaped in [text, String(quoted.dropFirst().dropLast()), Self.unicodeEscaped(text)] {
                    forms.insert(escaped)
                    forms.insert(escaped.replacingOccurrences(of: "/", with: "\\/"))
                }
            }
        }
        self.forms = forms.sorted { ($0.utf8.count, $0) > ($1.utf8.count, $1) }
        foldedForms = self.forms.map { Self.folded(Array($0.utf8)) }
    }

    /// What else `secret` may be echoed as: its base64 encodings, the text it decodes to
    /// when it is base64, and the same for what follows a scheme word (`Basic …`).
    private static func encodedForms(of secret: String) -> [String] {
        var parts = [secret]
        if let space = secret.firstIndex(of: " "), secret[..<space].allSatisfy(\.isLetter) {
            parts.append(String(secret[secret.index(after: space)...]))
        }
        var forms: [String] = []
        for part in parts where part.count >= minimumLength {
            if part != secret { forms.append(part) }
            let standard = Data(part.utf8).base64EncodedString()
            let unpadded = String(standard.prefix { $0 != "=" })
            let urlSafe = unpadded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            forms += [standard, unpadded, urlSafe]
            let padded = part + String(repeating: "=", count: (4 - part.utf8.count % 4) % 4)
            if let decoded = Data(base64Encoded: padded)
                ?? Data(
                    base64Encoded: padded.replacingOccurrences(of: "-", with: "+")
                        .replacingOccurrences(of: "_", with: "/")
                ),
                let text = String(data: decoded, encoding: .utf8),
                text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0 != "\u{7F}" })
            {
                forms.append(text)
            }
        }
        return forms
    }

    /// `bytes` with ASCII capitals made small (UTF-8 byte offsets unchanged).
    private static func folded(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }

    /// The mask of what `target`'s requests carry: its headers as sent (`rendered`, in the
    /// order of the target's headers) and the AWS credentials, if any.
    init(
        target: Target,
        rendered: [(name: String, value: String)],
        environment: [String: String],
        credentials: AWSCredentials?
    ) {
        var secrets: [String] = []
        for ((name, template), (_, value)) in zip(target.headers, rendered) {
            let variables = template.environmentNames
            if !variables.isEmpty || Self.isCredentialHeader(name) { secrets.append(value) }
            secrets += variables.compactMap { environment[$0] }
        }
        if let credentials {
            secrets +=
                [credentials.accessKeyID, credentials.secretAccessKey] + (credentials.sessionToken.map { [$0] } ?? [])
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
    package var longestFormBytes: Int { forms.first?.utf8.count ?? 0 }

    /// `text` with every form of every secret, in any ASCII letter case, replaced by
    /// ``replacement`` (longest forms first).
    package func callAsFunction(_ text: String) -> String {
        guard !forms.isEmpty else { return text }
        var bytes = Array(text.utf8)
        var folded = Self.folded(bytes)
        let replacement = Array(Self.replacement.utf8)
        var changed = false
        for form in foldedForms where form.count <= folded.count {
            var start = 0
            while start + form.count <= folded.count {
                if folded[start] == form[0], folded[start..<(start + form.count)].elementsEqual(form) {
                    bytes.replaceSubrange(start..<(start + form.count), with: replacement)
                    folded.replaceSubrange(start..<(start + form.count), with: replacement)
                    start += replacement.count
                    changed = true
                } else {
                    start += 1
                }
            }
        }
        // A form is whole UTF-8 scalars and so is every match: the bytes stay valid UTF-8.
        return changed ? String(decoding: bytes, as: UTF8.self) : text
    }

    /// The first `limit` characters of text a server sent, masked before it is cut (so that
    /// a secret the cut would halve is masked whole), in quotes with `…` when cut.
    package func excerpt(_ bytes: some Collection<UInt8>, limit: Int = 200) -> String {
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
