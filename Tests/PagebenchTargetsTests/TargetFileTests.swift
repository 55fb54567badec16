import Foundation
import PagebenchBase
import PagebenchHTTPClient
import PagebenchServer
import PagebenchWire
import Testing

@testable import PagebenchTargets

/// Target files are validated like scenarios: unknown keys and bad values are rejected with
/// the field named (the CLI exits 65), and a valid file keeps every setting.
@Suite struct TargetFileTests {
    static let http = """
        {"kind": "http", "endpoint": "http://127.0.0.1:8080", "partitions": {"range": [0, 3]},
         "path": "/partitions/${partition}/items?limit=${limit}", "items": "/items", "continuation": "/nextToken",
         "continuationIn": {"query": "nextToken"}, "headers": {"Authorization": "Bearer ${API_TOKEN}"}}
        """

    func load(_ text: String) throws(TargetFileError) -> Target {
        try Target.load(json: Data(text.utf8), defaultName: "t")
    }

    func rejection(_ text: String) -> String {
        do {
            _ = try load(text)
            return "accepted"
        } catch {
            return error.message
        }
    }

    /// `text` with one top-level member replaced (nil removes it).
    func http(_ key: String, _ value: String?) -> String {
        var object = try! JSONValue.parse(Self.http).objectValue!
        object[key] = try! value.map { try JSONValue.parse($0) }
        return JSONValue.object(object).text
    }

    @Test func aValidHTTPTargetKeepsEverySetting() throws {
        let target = try load(Self.http)
        #expect(target.kind == .http)
        #expect(target.name == "t")
        #expect(target.partitions?.count == 4)
        #expect(target.headers.map(\.name) == ["Authorization"])
        guard case .http(let request) = target.request else {
            Issue.record("not http")
            return
        }
        #expect(request.items.tokens == ["items"])
        #expect(request.continuationIn == .query("nextToken"))
        #expect(request.path.placeholders == [.partition, .limit])
    }

    @Test func unknownKeysAreRejectedNamingTheKeyAndTheKnownOnes() {
        let message = rejection(http("itemz", "\"/items\""))
        #expect(message.hasPrefix("itemz: unknown key for kind http"))
        #expect(message.contains("continuationIn"))
        // A key of another kind is unknown here too.
        #expect(rejection(http("table", "\"Items\"")).hasPrefix("table: unknown key"))
    }

    @Test func badValuesNameTheirField() {
        #expect(rejection(http("kind", "\"rest\"")).hasPrefix("kind: 'rest' is not a kind"))
        #expect(rejection(http("endpoint", "\"ftp://x\"")).hasPrefix("endpoint:"))
        #expect(rejection(http("endpoint", nil)).hasPrefix("endpoint: missing"))
        #expect(rejection(http("items", "\"items\"")).hasPrefix("items: 'items' is not a JSON Pointer"))
        #expect(rejection(http("items", "3")).hasPrefix("items: must be a string"))
        #expect(rejection(http("path", "\"/x/${partitionn}\"")).hasPrefix("path: unknown placeholder '${partitionn}'"))
        #expect(rejection(http("path", "\"/x/${limit\"")).hasPrefix("path:"))
        #expect(
            rejection(http("continuationIn", "{\"cookie\": \"t\"}")).hasPrefix(
                "continuationIn: 'cookie' is not a place"
            )
        )
        #expect(rejection(http("continuationIn", nil)).hasPrefix("continuationIn: missing"))
        #expect(rejection(http("partitions", "{\"range\": [5, 1]}")).hasPrefix("partitions.range:"))
        #expect(rejection(http("partitions", "{\"values\": []}")).hasPrefix("partitions: no values"))
        // Issue 12: what is wrong with the path, said plainly.
        #expect(
            rejection(http("partitions", "{\"file\": \"/nonexistent/keys.txt\"}")).hasPrefix(
                "partitions.file: '/nonexistent/keys.txt': no such file"
            )
        )
        #expect(rejection(http("headers", "{\"Host\": \"x\"}")).hasPrefix("headers.Host: set by the client"))
        #expect(rejection(http("headers", "{\"X\": \"${not a name}\"}")).hasPrefix("headers.X:"))
        #expect(rejection(http("timeoutSeconds", "0")).hasPrefix("timeoutSeconds:"))
        #expect(rejection(http("method", "\"get\"")).hasPrefix("method:"))
        #expect(rejection("[1]").contains("must be a JSON object"))
        #expect(rejection("{\"kind\": \"http\",").contains("not valid JSON"))
        #expect(rejection("{\"kind\": \"http\", \"kind\": \"graphql\"}").contains("appears twice"))
    }

    @Test func graphQLShapesAreCheckedAgainstTheirKeys() throws {
        let relay = """
            {"kind": "graphql", "endpoint": "http://127.0.0.1:1/graphql", "shape": "relay", "direction": "backward",
             "query": "query($last: Int, $before: String) { c(last: $last, before: $before) { edges { cursor } pageInfo { hasPreviousPage startCursor } } }",
             "variables": {"last": "${limit}"}, "items": "/data/c/edges", "pageInfo": "/data/c/pageInfo"}
            """
        let target = try load(relay)
        guard case .graphql(let request) = target.request else {
            Issue.record("not graphql")
            return
        }
        #expect(request.backward)
        #expect(request.continuationVariable == "before")
        #expect(
            rejection(relay.replacingOccurrences(of: "\"pageInfo\"", with: "\"continuation\"")).hasPrefix(
                "pageInfo: missing"
            )
        )
        #expect(
            rejection(relay.replacingOccurrences(of: "\"last\": \"${limit}\"", with: "\"before\": null")).hasPrefix(
                "variables.before:"
            )
        )
        #expect(
            rejection(relay.replacingOccurrences(of: "relay", with: "appsync")).hasPrefix("direction: backward applies")
        )
    }

    @Test func dynamoDBQueriesNeedAKeyConditionAndTakeNoHeaders() throws {
        let query = """
            {"kind": "dynamodb", "endpoint": "http://127.0.0.1:5000", "region": "us-east-1", "table": "Items",
             "keyConditionExpression": "pk = :pk", "expressionAttributeValues": {":pk": {"S": "${partition}"}},
             "partitions": {"values": ["a", "b"]}}
            """
        let target = try load(query)
        guard case .dynamodb(let request) = target.request else {
            Issue.record("not dynamodb")
            return
        }
        #expect(request.operation == .query)
        #expect(request.returnConsumedCapacity)
        #expect(
            rejection(query.replacingOccurrences(of: "\"keyConditionExpression\": \"pk = :pk\",", with: "")).hasPrefix(
                "keyConditionExpression:"
            )
        )
        #expect(
            rejection(query.replacingOccurrences(of: "\"table\"", with: "\"headers\": {}, \"table\"")).hasPrefix(
                "headers:"
            )
        )
        #expect(rejection(query.replacingOccurrences(of: "us-east-1", with: "US East")).hasPrefix("region:"))
        #expect(
            rejection(query.replacingOccurrences(of: "{\"S\": \"${partition}\"}", with: "\"a\"")).hasPrefix(
                "expressionAttributeValues:"
            )
        )
    }

    @Test func theTargetHashIgnoresHeaderValuesNameAndDescription() throws {
        let a = try load(Self.http)
        var renamed = try JSONValue.parse(http("headers", "{\"Authorization\": \"literal-secret\"}")).objectValue!
        renamed["name"] = .string("other")
        renamed["description"] = .string("the same API")
        let b = try load(JSONValue.object(renamed).text)
        #expect(b.name == "other")
        #expect(a.targetHash == b.targetHash)
        let c = try load(http("items", "\"/data\""))
        #expect(a.targetHash != c.targetHash)
        #expect(a.targetHash.count == 16)
    }

    /// Issue 37: `itemKey` is a JSON Pointer into each item, read through the one loader; a
    /// value that is not a pointer is refused naming the key; it is never sent, so it leaves
    /// `target_hash` as it was.
    @Test func theItemKeyIsAPointerIntoEachItemOutsideTheTargetHash() throws {
        let plain = try load(Self.http)
        #expect(plain.itemKey == nil)
        let keyed = try load(http("itemKey", "\"/id~1x\""))
        #expect(keyed.itemKey?.tokens == ["id/x"])
        #expect(keyed.targetHash == plain.targetHash)
        #expect(rejection(http("itemKey", "\"id\"")).hasPrefix("itemKey: 'id' is not a JSON Pointer"))
        #expect(rejection(http("itemKey", "\"/a~2\"")).hasPrefix("itemKey: '/a~2': '~' must be followed by 0 or 1"))
        #expect(rejection(http("itemKey", "7")) == "itemKey: must be a string, got a number")
    }

    /// Issue 12: drains choose among the partition values, so one listed twice would be
    /// chosen twice as often; the list is refused naming the field and the value.
    @Test func aPartitionValueListedTwiceIsRefused() throws {
        #expect(
            rejection(http("partitions", #"{"values": ["a", "b", "a"]}"#))
                == "partitions.values: lists 'a' twice (again at index 2); give each partition value once"
        )
        #expect(rejection(http("partitions", #"{"values": [7, 7]}"#)).hasPrefix("partitions.values: lists 7 twice"))
        // A string and a number are sent differently.
        #expect(rejection(http("partitions", #"{"values": ["7", 7]}"#)) == "accepted")
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-keys-\(UUID()).txt")
        defer { try? FileManager.default.removeItem(at: keys) }
        try "user-1\nuser-2\n user-1 \n".write(to: keys, atomically: true, encoding: .utf8)
        #expect(
            rejection(http("partitions", "{\"file\": \"\(keys.path)\"}")).hasPrefix(
                "partitions.file: lists 'user-1' twice"
            )
        )
    }

    @Test func partitionFilesAreReadRelativeToTheTargetFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-targetfile-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "user-1\n\nuser-2\n  user-3  \n".write(
            to: directory.appendingPathComponent("keys.txt"),
            atomically: true,
            encoding: .utf8
        )
        let path = directory.appendingPathComponent("api.json").path
        try http("partitions", "{\"file\": \"keys.txt\"}").write(toFile: path, atomically: true, encoding: .utf8)
        let target = try Target.load(path: path)
        #expect(target.name == "api")
        #expect(target.partitions == [.string("user-1"), .string("user-2"), .string("user-3")])
        do {
            _ = try Target.load(path: directory.appendingPathComponent("missing.json").path)
            Issue.record("a missing file loaded")
        } catch {
            #expect(error.isMissingFile)
        }
    }

    /// Issue 24: a target file nested 300,000 deep was a stack overflow (the syntax-error
    /// scanner recursed); now it is a file that is not valid JSON, said with where.
    @Test func aDeeplyNestedTargetFileIsRejectedNotACrash() {
        let message = rejection(String(repeating: "[", count: 300_000))
        #expect(
            message.contains("not valid JSON") && message.contains("nested at most \(StrictJSON.maximumDepth) deep"),
            "\(message)"
        )
        let deepBody = Self.http.replacingOccurrences(
            of: #""items": "/items""#,
            with: #""body": "# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
                + #", "items": "/items""#
        )
        #expect(rejection(deepBody).contains("nest deeper than \(JSONValue.maximumDepth) levels"))
    }

    /// Issue 24: every number of a target file is bounded where it is read, with an error
    /// naming the field and the bounds (`partitions.range` of the whole Int64 range trapped
    /// on overflow while loading).
    @Test func numbersAreBoundedWhereTheyAreReadNamingTheField() {
        #expect(
            rejection(http("partitions", #"{"range": [-9223372036854775808, 9223372036854775807]}"#)).hasPrefix(
                "partitions.range:"
            )
        )
        #expect(
            rejection(http("partitions", #"{"range": [-9223372036854775808, -9223372036854775808]}"#)) == "accepted"
        )
        #expect(rejection(http("partitions", #"{"range": [0, 99999999999999999999]}"#)).hasPrefix("partitions.range:"))
        #expect(rejection(http("partitions", #"{"range": [0, 10000000]}"#)).contains("at most 10000000 values"))
        #expect(rejection(http("timeoutSeconds", "1e400")).hasPrefix("timeoutSeconds: must be between 0.001 and 3600"))
        #expect(rejection(http("timeoutSeconds", "1e-300")).hasPrefix("timeoutSeconds: must be between 0.001 and 3600"))
        #expect(
            rejection(http("maxResponseBytes", "99999999999999999999")).hasPrefix(
                "maxResponseBytes: must be a whole number between 1 and 1073741824"
            )
        )
        #expect(
            rejection(http("maxResponseBytes", "1073741825")).hasPrefix(
                "maxResponseBytes: must be a whole number between 1 and 1073741824"
            )
        )
        #expect(rejection(http("maxResponseBytes", "1073741824")) == "accepted")
    }

    /// Issue 24: a file a target pulls in is read with a cap, refused naming the field and the
    /// cap; so is the target file itself. Issue 39: a device (`/dev/zero` was read without
    /// end) is refused before a byte is read, as no regular file.
    @Test func filesATargetPullsInAreReadWithACap() throws {
        let message = rejection(http("partitions", #"{"file": "/dev/zero"}"#))
        #expect(
            message
                == "partitions.file: '/dev/zero': is a character device, not a regular file; give the path of a file",
            "\(message)"
        )
        do {
            _ = try Target.load(path: "/dev/zero")
            Issue.record("/dev/zero loaded")
        } catch {
            #expect(
                error.message == "/dev/zero: is a character device, not a regular file; give the path of a file",
                "\(error.message)"
            )
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-cap-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let large = directory + "/large.txt"
        #expect(FileManager.default.createFile(atPath: large, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: large))
        try handle.truncate(atOffset: UInt64(Target.maximumPartitionsFileBytes + 1))
        try handle.close()
        let tooLarge = rejection(http("partitions", #"{"file": "\#(large)"}"#))
        #expect(
            tooLarge.hasPrefix(
                "partitions.file: '\(large)': larger than \(Target.maximumPartitionsFileBytes >> 20) MiB"
            ),
            "\(tooLarge)"
        )
    }
}
