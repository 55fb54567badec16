import COpenSSL

/// OpenSSL's per-thread error queue, read into words.
enum OpenSSLErrorQueue {
    /// Empties the queue (before an operation whose failure is then read from it).
    static func clear() {
        ERR_clear_error()
    }

    /// The reasons queued since the last ``clear()``, oldest first, and empties the queue.
    static func drain() -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            guard code != 0 else { break }
            if let reason = ERR_reason_error_string(code) {
                let text = String(cString: reason)
                if !reasons.contains(text) { reasons.append(text) }
            } else {
                var buffer = [CChar](repeating: 0, count: 256)
                ERR_error_string_n(code, &buffer, buffer.count)
                reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        return reasons.isEmpty ? "no reason given by OpenSSL" : reasons.joined(separator: "; ")
    }

    /// Whether the oldest queued error is `reason` of any library (left in the queue).
    static func oldestReason(is reason: Int32) -> Bool {
        let code = ERR_peek_error()
        return code != 0 && ERR_GET_REASON(code) == reason
    }
}
