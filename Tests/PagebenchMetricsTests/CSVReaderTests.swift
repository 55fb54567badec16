import Testing

@testable import PagebenchMetrics

@Suite("CSVReader and CSVWriter")
struct CSVReaderTests {
    let reader = CSVReader(file: "t.csv")

    func texts(_ input: String) throws -> [[String]] {
        try reader.records(input).map { $0.fields.map(\.text) }
    }

    func expectError(_ input: String, line: Int, column: Int?, _ fragment: String) {
        #expect {
            try reader.records(input)
        } throws: { error in
            guard let error = error as? MetricsError else { return false }
            return error.kind == .malformedInput && error.file == "t.csv" && error.line == line
                && error.column == column && error.message.contains(fragment)
        }
    }

    @Test("quoted fields carry commas, doubled quotes and newlines; LF and CRLF both end records")
    func quotedFields() throws {
        let input = "a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\nplain,,last"
        #expect(try texts(input) == [["a", "b", "c"], ["x, y", "say \"hi\"", "two\nlines"], ["plain", "", "last"]])
        let records = try reader.records(input)
        #expect(records[2].line == 4, "the embedded newline advances the line count")
        #expect(records[2].fields[2].column == 8)
    }

    @Test("a UTF-8 BOM at the start is skipped, not glued to the first column name")
    func byteOrderMark() throws {
        #expect(try texts("\u{FEFF}name,value\n1,2\n") == [["name", "value"], ["1", "2"]])
        #expect(try texts("\u{FEFF}") == [])
        #expect(try texts("") == [])
    }

    @Test("a trailing comma makes an empty last field; the last record may lack a line break")
    func trailingEmptyField() throws {
        #expect(try texts("a,\n") == [["a", ""]])
        #expect(try texts("a,b") == [["a", "b"]])
        #expect(try texts("\n") == [[""]])
    }

    @Test("malformed CSV is rejected with line and column")
    func malformed() {
        expectError("a,b\nx\"y,z\n", line: 2, column: 2, "quote inside an unquoted field")
        expectError("a,b\n\"x\"y,z\n", line: 2, column: 4, "after a closing quote")
        expectError("a,b\n1,\"never closed\n2,3\n", line: 2, column: 3, "never closed")
        expectError("a,b\r1,2\n", line: 1, column: 4, "bare carriage return")
    }

    @Test("writer quotes exactly what needs quoting, and reader reads it back")
    func writerRoundTrip() throws {
        let fields = ["plain", "with,comma", "with \"quote\"", "multi\nline", "cr\r\nlf", " padded ", "", "ünïcødé"]
        #expect(CSVWriter.escape("plain") == "plain")
        #expect(CSVWriter.escape("with,comma") == "\"with,comma\"")
        #expect(CSVWriter.escape("with \"quote\"") == "\"with \"\"quote\"\"\"")
        for ending in [CSVWriter.LineEnding.lf, .crlf] {
            let text = CSVWriter(lineEnding: ending).table(header: ["h1", "h2"], records: [fields, fields.reversed()])
            let parsed = try texts(text)
            #expect(parsed == [["h1", "h2"], fields, fields.reversed()])
        }
        #expect(CSVWriter(lineEnding: .crlf).record(["a", "b"]) == "a,b\r\n")
    }

    /// What `records` gives for `input` when it arrives in pieces of `size` bytes, as
    /// ``CSVFile`` reads a file: each call parses what has arrived, keeps the unfinished
    /// record for the next call, and only the last call is told the input has ended.
    func piecewise(_ input: String, size: Int) -> Result<[[String]], MetricsError> {
        let bytes = Array(input.utf8)
        var records: [[String]] = []
        var buffer: [UInt8] = []
        var offset = 0
        var line = 1
        var atStart = true
        do {
            repeat {
                let take = min(size, bytes.count - offset)
                buffer += bytes[offset..<(offset + take)]
                offset += take
                let isEnd = offset == bytes.count
                let parsed = try buffer.withUnsafeBufferPointer { piece in
                    try reader.parseRecords(piece, line: line, atStart: atStart, isEnd: isEnd) {
                        records.append($0.fields.map(\.text) + ["@\($0.line)"])
                    }
                }
                buffer.removeFirst(parsed.consumed)
                line = parsed.line
                if parsed.consumed > 0 { atStart = false }
            } while offset < bytes.count
            return .success(records)
        } catch {
            return .failure(error as! MetricsError)
        }
    }

    @Test("issue 12: input read in pieces of any size parses to the same records, lines and errors as whole")
    func piecesOfAnySize() throws {
        let inputs = [
            "a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\nplain,,last",
            "\u{FEFF}name,value\r\n1,2\r\n\"\"\"\",\"\"\r\n",
            "ünï,cødé\n\"é\"\"è\",日本\n,\n",
            "a,b\nx\"y,z\n",
            "a,b\n\"x\"é,z\n",
            "a,b\n1,\"never closed\n2,3\n",
            "a,b\r1,2\n",
            "a\r",
            "\n\n",
            "",
        ]
        for input in inputs {
            let whole: Result<[[String]], MetricsError>
            do {
                whole = .success(try reader.records(input).map { $0.fields.map(\.text) + ["@\($0.line)"] })
            } catch {
                whole = .failure(error as! MetricsError)
            }
            for size in 1...(input.utf8.count + 1) {
                let pieces = piecewise(input, size: size)
                switch (whole, pieces) {
                case (.success(let a), .success(let b)):
                    #expect(a == b, "\(input.debugDescription) in pieces of \(size)")
                case (.failure(let a), .failure(let b)):
                    #expect(
                        a.line == b.line && a.column == b.column && a.message == b.message,
                        "\(input.debugDescription) in pieces of \(size): \(a) vs \(b)"
                    )
                default:
                    Issue.record("\(input.debugDescription) in pieces of \(size): \(whole) vs \(pieces)")
                }
            }
        }
    }
}
