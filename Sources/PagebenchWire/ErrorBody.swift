import Foundation
import NIOCore
import PagebenchPage

/// The JSON body of every error response:
/// `{"code":"tokenMismatch","message":"token mismatch: …","retryable":false}`.
///
/// `code` is the in-process ``PagebenchStore/StoreError/Code`` name, or one of the
/// HTTP-only codes of ``StoreHTTPErrorCode``; `message` says what was wrong and how to fix
/// it; `retryable` is the page contract's rule for the code's kind
/// (``StoreHTTPErrorCode/pageErrorKind``): true for 429 and 503 (S21).
package struct ErrorBody: Sendable, Hashable {
    /// The code's text (kept as text so that a newer server's codes still decode).
    package var code: String
    package var message: String
    package var retryable: Bool

    package init(code: StoreHTTPErrorCode, message: String) {
        self.code = code.name
        self.message = message
        retryable = code.pageErrorKind.isRetryable
    }

    package init(code: String, message: String, retryable: Bool) {
        self.code = code
        self.message = message
        self.retryable = retryable
    }

    /// The body as JSON.
    package func encoded() -> ByteBuffer {
        var json = JSONWriter(capacity: 64 + message.utf8.count)
        json.raw("{\"code\":")
        json.string(code)
        json.raw(",\"message\":")
        json.string(message)
        json.raw(retryable ? ",\"retryable\":true}" : ",\"retryable\":false}")
        return json.buffer
    }

    /// Reads an error body; `nil` when the bytes are not one (a proxy's HTML page, say).
    package static func decode(_ buffer: ByteBuffer) -> ErrorBody? {
        struct Wire: Decodable {
            var code: String
            var message: String
            var retryable: Bool?
        }
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(buffer.readableBytesView)) else { return nil }
        return ErrorBody(code: wire.code, message: wire.message, retryable: wire.retryable ?? false)
    }
}
