import NIOCore
import PagebenchBase
import PagebenchHTTPTestSupport
import PagebenchPage
import PagebenchWire
import PagebenchStore
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
        let end = try PageBody.decode(ByteBuffer(string: #"{"items":[],"nextToken":null,"returned":0,"scanned":0,"scannedBytes":0}"#))
        #expect(end.nextToken == nil && end.items.isEmpty)
    }

    @Test(
        "malformed or incomplete pages are refused with the reason",
        arguments: [
            (#"{"items":[],"returned":0,"scanned":0,"scannedBytes":0}"#, "a page needs items, nextToken"),
            (#"{"items":[],"nextToken":null,"returned":1,"scanned":1,"scannedBytes":0}"#, "returned 1, scanned 1 but carries 0 items"),
            (#"{"items":[],"nextToken":null,"returned":0,"scanned":1.5,"scannedBytes":0}"#, "expected a whole number"),
            (#"{"items":[{"partition":1}],"nextToken":null,"returned":1,"scanned":1,"scannedBytes":0}"#, "an item needs"),
            (#"{"items":[],"nextToken":null,"returned":0,"scanned":0,"scannedBytes":0} x"#, "unexpected bytes after the value"),
            (#"{"items":[],"nextToken":"abc"#, "unterminated string"),
            (#"{"items":[],"nextToken":nul"#, "expected null"),
            (#"{"items":[],"nextToken":"\q","returned":0}"#, "bad escape"),
            (#"{"items":[],"nextToken":"\uD800","returned":0}"#, "unpaired surrogate"),
            (#"{"items":[],"nextToken":null,"returned":99999999999999999999}"#, "number out of range"),
            (#"{"items":[{"partition":1,"sortKey":0,"sizeBytes":1,"category":0,"fingerprint":"12345"}]}"#, "expected a string of 16 hex digits"),
            (#"{"items":[{"partition":1,"sortKey":0,"sizeBytes":1,"category":0,"fingerprint":"000000000000000g"}]}"#, "expected a string of 16 hex digits"),
            ("<html>busy</html>", "expected '{'"),
            ("", "expected '{'"),
        ])
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
        ] as [(String, String, String, String, String)])
    func canonicalLayoutAgreesWithGeneralReader(
        partition: String, sortKey: String, sizeBytes: String, category: String, fingerprint: String
    ) {
        func page(_ item: String) -> ByteBuffer {
            ByteBuffer(string: #"{"items":["# + item + #"],"nextToken":null,"returned":1,"scanned":1,"scannedBytes":0}"#)
        }
        let canonical = #"{"partition":\#(partition),"sortKey":\#(sortKey),"sizeBytes":\#(sizeBytes),"category":\#(category),"fingerprint":"\#(fingerprint)"}"#
        let reordered = #"{"fingerprint":"\#(fingerprint)","category":\#(category),"sizeBytes":\#(sizeBytes),"sortKey":\#(sortKey),"partition":\#(partition)}"#
        let fast = Result { try PageBody.decode(page(canonical)) }
        let general = Result { try PageBody.decode(page(reordered)) }
        switch (fast, general) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(a is HTTPSourceError && b is HTTPSourceError)
        default: Issue.record("fast path \(fast), general reader \(general)")
        }
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
