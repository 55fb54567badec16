import Foundation

/// AWS credentials for Signature Version 4, read from the environment (T4). Their
/// `description` never shows the secret.
package struct AWSCredentials: Sendable, Hashable, CustomStringConvertible {
    package var accessKeyID: String
    package var secretAccessKey: String
    package var sessionToken: String?

    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and (optional) `AWS_SESSION_TOKEN`.
    ///
    /// - Throws: ``TargetFileError`` naming the missing variable (never a value).
    package static func fromEnvironment(_ environment: [String: String]) throws(TargetFileError) -> AWSCredentials {
        guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty else {
            throw TargetFileError(
                "the dynamodb kind signs its requests: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
            )
        }
        guard let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else {
            throw TargetFileError("the dynamodb kind signs its requests: set AWS_SECRET_ACCESS_KEY")
        }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
    }

    package var description: String { "AWS credentials for access key \(accessKeyID)" }
}

/// AWS Signature Version 4 for one request (the `Authorization` header), as botocore's
/// `SigV4Auth` computes it: canonical request over every header given (names lowercased,
/// sorted, values trimmed with inner spaces collapsed), SHA-256 of the payload, the
/// `AWS4-HMAC-SHA256` string to sign, and the key derived by HMAC-SHA256 chaining over
/// date, region, service and `aws4_request`. Checked against vectors generated with
/// botocore (Tests/PagebenchTargetsTests/Fixtures/sigv4-vectors.json).
package struct SigV4Signer: Sendable {
    package let credentials: AWSCredentials
    package let region: String
    package let service: String

    package init(credentials: AWSCredentials, region: String, service: String) {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The headers to add to a request: `X-Amz-Date`, `X-Amz-Security-Token` (with a session
    /// token) and `Authorization`.
    ///
    /// - Parameters:
    ///   - headers: the request's other headers, `Host` included; all are signed.
    ///   - path: the request path (already URI-encoded), `/` for DynamoDB.
    ///   - query: the query string, `""` for none.
    ///   - date: the signing time.
    package func signedHeaders(
        method: String,
        path: String,
        query: String = "",
        headers: [(name: String, value: String)],
        payload: some DataProtocol,
        date: Date
    ) -> [(name: String, value: String)] {
        let amzDate = Self.timestamp(date)
        let day = String(amzDate.prefix(8))
        var all = headers
        all.append(("X-Amz-Date", amzDate))
        if let token = credentials.sessionToken { all.append(("X-Amz-Security-Token", token)) }
        var canonical: [String: String] = [:]
        for (name, value) in all {
            let key = name.lowercased()
            let trimmed = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            canonical[key] = canonical[key].map { $0 + "," + trimmed } ?? trimmed
        }
        let names = canonical.keys.sorted()
        let signed = names.joined(separator: ";")
        let canonicalRequest = [
            method, path.isEmpty ? "/" : path, Self.canonicalQuery(query),
            names.map { "\($0):\(canonical[$0]!)\n" }.joined(), signed, Self.hex(SHA256Digest.hash(payload)),
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", amzDate, scope, Self.hex(SHA256Digest.hash(Array(canonicalRequest.utf8))),
        ]
        .joined(separator: "\n")
        var key = Array(("AWS4" + credentials.secretAccessKey).utf8)
        for part in [day, region, service, "aws4_request"] {
            key = SHA256Digest.hmac(key: key, message: Array(part.utf8))
        }
        let signature = Self.hex(SHA256Digest.hmac(key: key, message: Array(stringToSign.utf8)))
        var added: [(name: String, value: String)] = [("X-Amz-Date", amzDate)]
        if let token = credentials.sessionToken { added.append(("X-Amz-Security-Token", token)) }
        added.append(
            (
                "Authorization",
                "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signed), Signature=\(signature)"
            )
        )
        return added
    }

    /// `YYYYMMDD'T'HHMMSS'Z'` in UTC.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(c.year ?? 1970)\(two(c.month))\(two(c.day))T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
    }

    /// Query parameters sorted by name then value (already percent-encoded as sent).
    static func canonicalQuery(_ query: String) -> String {
        guard !query.isEmpty else { return "" }
        let pairs = query.split(separator: "&").map { part -> (String, String) in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(pieces[0]), pieces.count > 1 ? String(pieces[1]) : "")
        }
        return pairs.sorted { $0 < $1 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
