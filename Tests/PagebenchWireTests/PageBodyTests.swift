import NIOCore
import PagebenchBase
import PagebenchHTTPTestSupport
import PagebenchPage
import PagebenchStore
import PagebenchWire
import Testing

/// The page body's own reader (the client does not use Foundation's JSONDecoder).
@Suite("Page body")
struct PageBodyTests {
    private func pages() async throws -> [Page] {
        try await TestStores.pages(TestStores.store(), PageRequest(range: .scan, limit: 6, filter: .matching))
    }

    @Test("S9: encode then decode gives the page back, with and without payloads")
    func s9RoundTrip() async throws {
        for page in try await pages() {
            #expect(try PageBody.decode(PageBody.encode(page, includePayload: false)) == page)
            #expect(try PageBody.decode(PageBody.encode(page, includePayload: true)) == page)
        }
    }

    @Test("any key order, whitespace, escapes and unknown members are read as JSON says")
    func generalJSON() throws {
        let text = """
             { "scannedBytes" : 1024 , "extra": {"a": [1, -2.5e3, true, false, null, "x\\"y"]},
              "items" : [ {"fingerprint":"00000000000000ff","category":0,"sizeBytes":512,
                           "sortKey":18446744073709551615,"partition":4,"payload":"AAEC"} ],
              "returned": 1, "scanned": 2,
              "nextToken": "A\\u0042\\/C\\uD83D\\uDE00" }
            """
        let page = try PageBody.decode(ByteBuffer(string: text))
        #expect(page.scannedBytes == 1024)
        #expect(page.scannedCount == 2)
        #expect(page.nextToken == "AB/C😀")
        #expect(page.items == [Item(partition: 4, sortKey: .max, sizeBytes: 512, category: 0, fingerprint: 255)])
        let end = try PageBody.decode(
            ByteBuffer(string: #"{"items":[],"nextToken":null,"returned":0,"scanned":0,"scannedBytes":0}"#)
        )
        #expect(end.nextToken == nil && end.items.isEmpty)
    }

    @Test(
        "malformed or incomplete pages are refused with the reason",
        arguments: [
            (#"{"items":[],"returned":0,"scanned":0,"scannedBytes":0}"#, "a page needs items, nextToken"),
            (
                #"{"items":[],"nextToken":null,"returned":1,"scanned":1,"scannedBytes":0}"#,
                "returned 1, scanned 1 but carries 0 items"
            ),
            (#"{"items":[],"nextToken":null,"returned":0,"scanned":1.5,"scannedBytes":0}"#, "expected a whole number"),
            (
                #"{"items":[{"partition":1}],"nextToken":null,"returned":1,"scanned":1,"scannedBytes":0}"#,
                "an item needs"
            ),
            (
                #"{"items":[],"nextToken":null,"returned":0,"scanned":0,"scannedBytes":0} x"#,
                "unexpected bytes after the value"
            ),
            (#"{"items":[],"nextToken":"abc"#, "unterminated string"),
            (#"{"items":[],"nextToken":nul"#, "expected null"),
            (#"{"items":[],"nextToken":"\q","returned":0}"#, "bad escape"),
            (#"{"items":[],"nextToken":"\uD800","returned":0}"#, "unpaired surrogate"),
            (#"{"items":[],"nextToken":null,"returned":99999999999999999999}"#, "number out of range"),
            (
                #"{"items":[{"partition":1,"sortKey":0,"sizeBytes":1,"category":0,"fingerprint":"12345"}]}"#,
                "expected a string of 16 hex digits"
            ),
            (
                #"{"items":[{"partition":1,"sortKey":0,"sizeBytes":1,"category":0,"fingerprint":"000000000000000g"}]}"#,
                "expected a string of 16 hex digits"
            ),
            ("<html>busy</html>", "expected '{'"),
            ("", "expected '{'"),
        ]
    )
    func malformed(text: String, reason: String) {
        #expect {
            try PageBody.decode(ByteBuffer(string: text))
        } throws: { error in
            guard let error = error as? HTTPSourceError, error.code == .unexpectedResponse else { return false }
            return error.message.contains(reason)
        }
    }

    @Test(
        "items in the server's own layout (read by the fast path) decode exactly as the same items in another key order",
        arguments: [
            ("3", "17", "512", "0", "9f0c00000000abcd"),
            ("0", "0", "0", "0", "0000000000000000"),
            ("-3", "17", "512", "-1", "9F0C00000000ABCD"),
            ("00", "17", "512", "0", "9f0c00000000abcd"),
            ("3", "017", "512", "0", "9f0c00000000abcd"),
            ("999999999999999999", "9999999999999999999", "1", "2", "ffffffffffffffff"),
            ("9223372036854775807", "18446744073709551615", "1", "2", "ffffffffffffffff"),
            ("9223372036854775808", "1", "1", "2", "ffffffffffffffff"),
            ("3", "18446744073709551616", "1", "2", "ffffffffffffffff"),
            ("3", "17", "5.5", "0", "9f0c00000000abcd"),
            ("3", "17", "5e2", "0", "9f0c00000000abcd"),
            ("3", "17", " 5", "0", "9f0c00000000abcd"),
            ("3", "17", "5", "0", "9f0c00000000abc"),
            ("3", "17", "5", "0", "9f0c00000000abcde"),
            ("3", "17", "5", "0", "9f0c00000000abcg"),
            ("3", "17", "5", "0", "9f0c0000\\u0030000abcd"),
        ] as [(String, String, String, String, String)]
    )
    func canonicalLayoutAgreesWithGeneralReader(
        partition: String,
        sortKey: String,
        sizeBytes: String,
        category: String,
        fingerprint: String
    ) {
        func page(_ item: String) -> ByteBuffer {
            ByteBuffer(
                string: #"{"items":["# + item + #"],"nextToken":null,"returned":1,"scanned":1,"scannedBytes":0}"#
            )
        }
        let canonical =
            #"{"partition":\#(partition),"sortKey":\#(sortKey),"sizeBytes":\#(sizeBytes),"category":\#(category),"fingerprint":"\#(fingerprint)"}"#
        let reordered =
            #"{"fingerprint":"\#(fingerprint)","category":\#(category),"sizeBytes":\#(sizeBytes),"sortKey":\#(sortKey),"partition":\#(partition)}"#
        let fast = Result { try PageBody.decode(page(canonical)) }
        let general = Result { try PageBody.decode(page(reordered)) }
        switch (fast, general) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(a is HTTPSourceError && b is HTTPSourceError)
        default: Issue.record("fast path \(fast), general reader \(general)")
        }
    }

    @Test(
        "T2: a page whose text is not UTF-8 (in the token, an item's skipped member, a key) is not a page: a malformed answer, not U+FFFD",
        arguments: [
            (#"{"items":[],"nextToken":"AB\#u{FF}C","returned":0,"scanned":0,"scannedBytes":0}"#, "0xFF"),
            (
                #"{"items":[{"partition":1,"sortKey":2,"sizeBytes":3,"category":0,"fingerprint":"00000000000000ff","note":"\#u{C0}\#u{80}"}],"nextToken":null,"returned":1,"scanned":1,"scannedBytes":3}"#,
                "0xC0"
            ),
            (
                #"{"items":[],"nextToken":null,"returned":0,"scanned":0,"scannedBytes":0,"x\#u{ED}\#u{A0}\#u{80}":1}"#,
                "0xED"
            ),
        ]
    )
    func t2InvalidUTF8IsAMalformedAnswer(text: String, byte: String) throws {
        // The text as Latin-1 bytes: each scalar below U+0100 is one byte, so 0xFF stays 0xFF.
        let bytes = text.unicodeScalars.map { UInt8($0.value) }
        do {
            let page = try PageBody.decode(ByteBuffer(bytes: bytes))
            Issue.record("decoded \(page)")
        } catch {
            #expect(error.pageErrorKind == .malformedAnswer)
            #expect("\(error)".contains("invalid UTF-8"), "\(error)")
        }
        // The same text in UTF-8 (each of those scalars as two bytes) is a page.
        #expect(throws: Never.self) { try PageBody.decode(ByteBuffer(string: text)) }
    }

    @Test("every truncation and 3000 seeded byte mutations of a real body decode or throw, never crash")
    func mutations() async throws {
        let body = PageBody.encode(try await pages()[1], includePayload: true)
        let original = Array(body.readableBytesView)
        for length in 0..<original.count {
            #expect(throws: HTTPSourceError.self) { try PageBody.decode(ByteBuffer(bytes: original.prefix(length))) }
        }
        var random = SplitMix64(seed: 0x5EED)
        func next() -> UInt64 { random.next() }
        var decoded = 0
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<Int(next() % 3) + 1 {
                bytes[Int(next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: next())
            }
            if (try? PageBody.decode(ByteBuffer(bytes: bytes))) != nil { decoded += 1 }
        }
        #expect(decoded < 3000, "some mutations must be refused")
    }
}

/// One JSON string quoting (issue 39): the byte writer, JSON values and the strict loader's tree
/// write a string alike, and JSONReader reads it back.
@Suite struct JSONStringTests {
    @Test(
        "every control character, quote and backslash, and UTF-8, written alike by JSONWriter, JSONValue and StrictJSON.Node"
    )
    func oneQuoting() throws {
        let text = String(decoding: Array(0..<0x80), as: UTF8.self) + "é € 😀"
        var quoted = ""
        JSONString.quote(text, into: &quoted)
        var writer = JSONWriter(capacity: 64)
        writer.string(text)
        #expect(String(buffer: writer.buffer) == quoted)
        #expect(JSONValue.string(text).text == quoted)
        #expect(StrictJSON.Node.string(text).sortedCompactText == quoted)
        #expect(quoted.hasPrefix(#""\u0000\u0001"#) && quoted.contains(#"\u0007\u0008\t\n\u000b\u000c\r\u000e"#))
        #expect(quoted.contains(##" !\"#"##) && quoted.contains(#"[\\]"#) && quoted.hasSuffix("\u{7F}é € 😀\""))
        #expect(try JSONValue.parse(quoted) == .string(text))
    }
}
