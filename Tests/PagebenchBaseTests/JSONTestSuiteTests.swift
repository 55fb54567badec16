import Foundation
import PagebenchBase
import Testing

/// Nicolas Seriot's JSONTestSuite parsing corpus (Tests/Fixtures/JSONTestSuite, MIT) against
/// the one reader of pagebench's files, ``StrictJSON/Document`` (built on JSONReader): every
/// `y_` file accepted, every `n_` file refused with a located error, every `i_` file either
/// way without a crash (issue 39).
@Suite struct JSONTestSuiteTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/JSONTestSuite/test_parsing").standardized.path

    /// The corpus files whose names start with `prefix`, sorted.
    static func files(_ prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasPrefix(prefix) && $0.hasSuffix(".json")
        }.sorted()
    }

    /// Reads a corpus file as pagebench reads a file: the document's tree (repeated keys and
    /// nulls are the formats' rules, not JSON's: not checked here).
    static func read(_ name: String) throws(StrictJSON.LoadError) -> StrictJSON.Document {
        let bytes = Array(FileManager.default.contents(atPath: directory + "/" + name) ?? Data())
        return try StrictJSON.Document(bytes: bytes, nullable: nil, checked: false, finiteNumbers: false)
    }

    @Test func theCorpusIsComplete() throws {
        #expect(try Self.files("y_").count == 95)
        #expect(try Self.files("n_").count == 188)
        #expect(try Self.files("i_").count == 35)
    }

    @Test func everyFileJSONAllowsIsAccepted() throws {
        var refused: [String] = []
        for name in try Self.files("y_") {
            do throws(StrictJSON.LoadError) {
                _ = try Self.read(name)
            } catch {
                refused.append("\(name): \(error)")
            }
        }
        #expect(refused.isEmpty, "\(refused.joined(separator: "\n"))")
    }

    @Test func everyFileJSONForbidsIsRefusedWithItsPlace() throws {
        var accepted: [String] = []
        for name in try Self.files("n_") {
            do throws(StrictJSON.LoadError) {
                _ = try Self.read(name)
                accepted.append(name)
            } catch {
                guard case .notJSON(let located?, _) = error, located.hasPrefix("line ") else {
                    Issue.record("\(name): refused without a place: \(error)")
                    continue
                }
            }
        }
        #expect(accepted.isEmpty, "\(accepted.joined(separator: "\n"))")
    }

    @Test func filesLeftToTheParserAreReadOrRefusedWithoutACrash() throws {
        var outcomes: [String: Bool] = [:]
        for name in try Self.files("i_") {
            outcomes[name] = (try? Self.read(name)) != nil
        }
        #expect(outcomes.count == 35)
        // Invalid UTF-8 is refused, never repaired into U+FFFD.
        for name in [
            "i_string_invalid_utf-8.json", "i_string_iso_latin_1.json", "i_string_overlong_sequence_2_bytes.json",
        ] {
            #expect(outcomes[name] == false, "\(name)")
        }
    }

    @Test func invalidUTF8IsRefusedWhereItStarts() {
        let bytes: [UInt8] = Array(#"{"name": "caf"#.utf8) + [0xE9] + Array(#""}"#.utf8)
        #expect(throws: StrictJSON.LoadError.self) { _ = try StrictJSON.Document(bytes: bytes) }
        do {
            _ = try StrictJSON.Document(bytes: bytes)
        } catch {
            guard case .notJSON(let located, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(
                located
                    == "line 1, column 14: expected UTF-8 text (save the file as UTF-8), found the byte 0xE9 (not UTF-8)"
            )
        }
    }
}
