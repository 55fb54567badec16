import Foundation
import Testing

@testable import PagebenchTargets

/// AWS Signature Version 4 against vectors botocore computed (Fixtures/sigv4-vectors.json,
/// made by Fixtures/make-sigv4-vectors.py): the same request, credentials and time give
/// the same `Authorization`, `X-Amz-Date` and `X-Amz-Security-Token` headers.
@Suite struct SigV4SignerTests {
    struct Vectors: Decodable {
        var botocore: String
        var vectors: [Vector]
    }

    struct Vector: Decodable {
        var name: String
        var accessKeyID: String
        var secretAccessKey: String
        var sessionToken: String?
        var region: String
        var service: String
        var host: String
        var headers: [String: String]
        var body: String
        var epochSeconds: Double
        var expected: [String: String?]
    }

    static func vectors() throws -> [Vector] {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/sigv4-vectors", withExtension: "json"))
        return try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url)).vectors
    }

    @Test func botocoreVectorsAreReproducedExactly() throws {
        let vectors = try Self.vectors()
        #expect(vectors.count == 3)
        for vector in vectors {
            let signer = SigV4Signer(
                credentials: AWSCredentials(
                    accessKeyID: vector.accessKeyID,
                    secretAccessKey: vector.secretAccessKey,
                    sessionToken: vector.sessionToken
                ),
                region: vector.region,
                service: vector.service
            )
            var headers: [(name: String, value: String)] = [("Host", vector.host)]
            for key in vector.headers.keys.sorted() { headers.append((key, vector.headers[key]!)) }
            let added = signer.signedHeaders(
                method: "POST",
                path: "/",
                headers: headers,
                payload: Array(vector.body.utf8),
                date: Date(timeIntervalSince1970: vector.epochSeconds)
            )
            let byName = Dictionary(uniqueKeysWithValues: added.map { ($0.name, $0.value) })
            #expect(byName["Authorization"] == vector.expected["Authorization"]!, "\(vector.name)")
            #expect(byName["X-Amz-Date"] == vector.expected["X-Amz-Date"]!, "\(vector.name)")
            #expect(byName["X-Amz-Security-Token"] == vector.expected["X-Amz-Security-Token"] ?? nil, "\(vector.name)")
        }
    }

    @Test func aChangedByteOfTheBodyChangesTheSignature() throws {
        let vector = try #require(try Self.vectors().first)
        let signer = SigV4Signer(
            credentials: AWSCredentials(accessKeyID: vector.accessKeyID, secretAccessKey: vector.secretAccessKey),
            region: vector.region,
            service: vector.service
        )
        let date = Date(timeIntervalSince1970: vector.epochSeconds)
        let a = signer.signedHeaders(
            method: "POST",
            path: "/",
            headers: [("Host", vector.host)],
            payload: Array("{}".utf8),
            date: date
        )
        let b = signer.signedHeaders(
            method: "POST",
            path: "/",
            headers: [("Host", vector.host)],
            payload: Array("{ }".utf8),
            date: date
        )
        #expect(a.last!.value != b.last!.value)
    }

    @Test func credentialsComeFromTheEnvironmentAndNeverShowTheSecret() throws {
        let credentials = try AWSCredentials.fromEnvironment([
            "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "very-secret", "AWS_SESSION_TOKEN": "tok",
        ])
        #expect(credentials.sessionToken == "tok")
        #expect(!"\(credentials)".contains("very-secret"))
        #expect(throws: TargetFileError.self) { try AWSCredentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "AKID"]) }
    }
}
