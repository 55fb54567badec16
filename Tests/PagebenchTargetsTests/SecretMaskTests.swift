import Foundation
import Testing

@testable import PagebenchTargets

/// T4: the secrets a target run knows are masked in every form a server echoes them.
@Suite struct SecretMaskTests {
    @Test func everyFormOfASecretIsMaskedAndShortValuesAreNot() {
        let mask = SecretMask(["tok/en é+1", "abc", ""])
        #expect(mask("raw tok/en é+1 end") == "raw [masked] end")
        #expect(mask(#"json "tok\/en \u00e9+1""#) == #"json "[masked]""#)
        #expect(mask(#"json "tok/en \u00e9+1""#) == #"json "[masked]""#)
        #expect(mask("url ?t=tok%2Fen%20%C3%A9%2B1&x") == "url ?t=[masked]&x")
        // Shorter than 4 characters: no credential, and masking it would garble messages.
        #expect(mask("abc 123") == "abc 123")
        #expect(SecretMask(["abc"]).forms.isEmpty)
    }

    /// Issue 39: a server that echoes a secret lower-cased, upper-cased or base64-encoded,
    /// or a Basic credential decoded, gets it masked too.
    @Test func t4ASecretEchoedInAnotherFormIsMasked() {
        let token = "Tok-AbC123xyz/+Q"
        let mask = SecretMask(["Bearer " + token, token])
        let base64 = Data(token.utf8).base64EncodedString()
        #expect(base64.hasSuffix("="))
        let urlSafe = base64.replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        for echoed in [
            token.lowercased(), token.uppercased(), "bearer " + token.lowercased(), base64,
            base64.replacingOccurrences(of: "=", with: ""), urlSafe,
            Data(("Bearer " + token).utf8).base64EncodedString(),
        ] {
            #expect(mask("said: \(echoed).") == "said: [masked].", "\(echoed)")
        }
        let basic = SecretMask(["Basic " + Data("user:s3cr3t-pass".utf8).base64EncodedString()])
        #expect(basic(#"{"you": "user:s3cr3t-pass"}"#) == #"{"you": "[masked]"}"#)
        #expect(basic("unrelated text stays") == "unrelated text stays")
        // Non-ASCII text around a match stays whole.
        #expect(mask("é \(token.uppercased()) ü") == "é [masked] ü")
    }

    @Test func anExcerptIsMaskedBeforeItIsCutSoAHalvedSecretIsMaskedWhole() {
        let secret = String(repeating: "s", count: 50)
        let mask = SecretMask([secret])
        let body = Array((String(repeating: "-", count: 180) + secret + "tail").utf8)
        let excerpt = mask.excerpt(body, limit: 200)
        #expect(!excerpt.contains("ssss"))
        #expect(excerpt == "'" + String(repeating: "-", count: 180) + "[masked]tail'")
        #expect(mask.excerpt(Array("short".utf8)) == "'short'")
        #expect(
            mask.excerpt(Array(String(repeating: "a", count: 300).utf8)) == "'" + String(repeating: "a", count: 200)
                + "…'"
        )
    }

    @Test func headersFromTheEnvironmentOrNamedLikeCredentialsAreSecrets() async throws {
        let target = try Target.load(
            json: Data(
                """
                {"kind": "http", "endpoint": "http://127.0.0.1:9", "path": "/x", "items": "/items", "continuation": "/n",
                 "continuationIn": {"query": "n"},
                 "headers": {"Authorization": "Bearer ${TOKEN}", "X-Api-Key": "literal-key", "Accept": "application/json",
                             "X-Tenant": "${TENANT}"}}
                """.utf8
            ),
            defaultName: "t"
        )
        let source = try TargetSource(
            target: target,
            connections: 1,
            environment: ["TOKEN": "tok-123456", "TENANT": "tenant-42"]
        )
        #expect(Set(source.mask.forms).isSuperset(of: ["Bearer tok-123456", "tok-123456", "literal-key", "tenant-42"]))
        #expect(!source.mask.forms.contains("application/json"))
        let dynamo = try Target.load(
            json: Data(
                #"{"kind": "dynamodb", "endpoint": "http://127.0.0.1:9", "region": "us-east-1", "table": "t", "operation": "Scan"}"#
                    .utf8
            ),
            defaultName: "d"
        )
        let signed = try TargetSource(
            target: dynamo,
            connections: 1,
            environment: [
                "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE1", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI",
                "AWS_SESSION_TOKEN": "FwoGZXIvYXdz",
            ]
        )
        #expect(Set(signed.mask.forms).isSuperset(of: ["AKIDEXAMPLE1", "wJalrXUtnFEMI", "FwoGZXIvYXdz"]))
        await source.shutdown()
        await signed.shutdown()
    }
}
