import Foundation
import Testing

@testable import PagebenchMetrics

@Suite("CSVFile and AtomicFile")
struct CSVFileTests {
    /// A fresh directory under the system temporary directory, removed afterwards.
    static func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pagebench-metrics-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer {
            chmod(path, 0o755)
            try? FileManager.default.removeItem(atPath: path)
        }
        try body(path)
    }

    static func contents(_ path: String) throws -> String { try TextFile.read(path) }

    static func leftovers(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") }
    }

    @Test("write then read gives the rows back; the old file is replaced whole")
    func writeAndRead() throws {
        try Self.withTemporaryDirectory { directory in
            let path = directory + "/latest.csv"
            let rows = [ResultRowTests.sampleRow(repetition: 1), ResultRowTests.sampleRow(repetition: 2)]
            try CSVFile.write(rows, to: path)
            #expect(try CSVFile.read(ResultRow.self, from: path) == rows)
            try CSVFile.write([rows[1]], to: path)
            #expect(try CSVFile.read(ResultRow.self, from: path) == [rows[1]])
            #expect(try Self.leftovers(directory).isEmpty)
        }
    }

    @Test("issue 12: a file read a piece at a time gives the rows, and the errors, of the file read whole")
    func readInPieces() throws {
        try Self.withTemporaryDirectory { directory in
            let path = directory + "/rows.csv"
            var rows = (1...5).map { ResultRowTests.sampleRow(repetition: $0) }
            rows[2].scenario = "ünïcødé, with a comma and \"quotes\""
            try CSVFile.write(rows, to: path)
            let text = try Self.contents(path)
            for size in [1, 2, 3, 5, 64, 1000, text.utf8.count] {
                var read: [ResultRow] = []
                try CSVFile.forEachRow(ResultRow.self, from: path, pieceBytes: size) { row, _, _ in read.append(row) }
                #expect(read == rows, "pieces of \(size)")
            }
            // CRLF line ends and a byte-order mark, as a spreadsheet saves them.
            try ("\u{FEFF}" + text.replacingOccurrences(of: "\n", with: "\r\n")).write(
                toFile: path,
                atomically: true,
                encoding: .utf8
            )
            for size in [1, 2, 7] {
                var read: [ResultRow] = []
                try CSVFile.forEachRow(ResultRow.self, from: path, pieceBytes: size) { row, _, _ in read.append(row) }
                #expect(read == rows, "CRLF and BOM in pieces of \(size)")
            }
            // A defect on line 5 is reported there whatever the pieces, after the rows before it.
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines[4] = lines[4].replacingOccurrences(
                of: ",",
                with: ",\"x\"y",
                options: [],
                range: lines[4].range(of: ",")
            )
            try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
            for size in [1, 3, 64, 1 << 20] {
                var read = 0
                #expect {
                    try CSVFile.forEachRow(ResultRow.self, from: path, pieceBytes: size) { _, _, _ in read += 1 }
                } throws: { error in
                    (error as? MetricsError)?.line == 5
                        && (error as? MetricsError)?.message.contains("after a closing quote") == true
                }
                #expect(read == 3, "pieces of \(size)")
            }
            // Bytes that are not UTF-8 are refused as the whole-file reader refused them.
            try Data(Array((ResultRow.csvHeader.joined(separator: ",") + "\n").utf8) + [0xFF, 0x0A])
                .write(to: URL(fileURLWithPath: path))
            #expect {
                try CSVFile.forEachRow(ResultRow.self, from: path, pieceBytes: 1) { _, _, _ in }
            } throws: { ($0 as? MetricsError)?.message.contains("not UTF-8") == true }
        }
    }

    @Test("issue 12: a directory, or a file this user may not read, is named with what is wrong")
    func unreadableInputs() throws {
        try Self.withTemporaryDirectory { directory in
            #expect {
                try CSVFile.readResults(directory)
            } throws: { error in
                guard let error = error as? MetricsError else { return false }
                return error.kind == .inputUnavailable
                    && error.description == "\(directory): is a directory, not a file; give the path of a file"
            }
        }
    }

    @Test("a failed atomic write leaves the old file intact and no temporary file behind")
    func failedWriteKeepsOldFile() throws {
        guard geteuid() != 0 else {
            // root ignores directory permissions; use a destination that is a directory instead.
            try Self.withTemporaryDirectory { directory in
                let path = directory + "/latest.csv"
                try FileManager.default.createDirectory(atPath: path + "/inner", withIntermediateDirectories: true)
                #expect { try AtomicFile.write("new", to: path) } throws: { error in
                    (error as? MetricsError)?.kind == .outputFailed && (error as? MetricsError)?.file == path
                }
                #expect(FileManager.default.fileExists(atPath: path + "/inner"))
                #expect(try Self.leftovers(directory).isEmpty)
            }
            return
        }
        try Self.withTemporaryDirectory { directory in
            let path = directory + "/latest.csv"
            try AtomicFile.write("old contents\n", to: path)
            chmod(directory, 0o555)  // unwritable: no temporary file can be created
            #expect { try AtomicFile.write("new contents\n", to: path) } throws: { error in
                guard let error = error as? MetricsError else { return false }
                return error.kind == .outputFailed && error.message.contains("writable")
            }
            chmod(directory, 0o755)
            #expect(try Self.contents(path) == "old contents\n")
            #expect(try Self.leftovers(directory).isEmpty)
        }
    }

    @Test("a failure at the last step (before rename) keeps the old file and removes the temporary file")
    func failureBeforeRename() throws {
        struct Injected: Error {}
        try Self.withTemporaryDirectory { directory in
            let path = directory + "/latest.csv"
            try AtomicFile.write("old contents\n", to: path)
            var sawTemporary = false
            #expect(throws: Injected.self) {
                try AtomicFile.write("new contents\n", to: path) {
                    sawTemporary = try !Self.leftovers(directory).isEmpty
                    throw Injected()
                }
            }
            #expect(sawTemporary, "the new contents were staged in a temporary file")
            #expect(try Self.contents(path) == "old contents\n")
            #expect(try Self.leftovers(directory).isEmpty)
        }
    }

    @Test("writing into a missing directory fails clearly")
    func missingDirectory() throws {
        try Self.withTemporaryDirectory { directory in
            #expect { try AtomicFile.write("x", to: directory + "/no/such/dir/file.csv") } throws: { error in
                guard let error = error as? MetricsError else { return false }
                return error.kind == .outputFailed && error.description.contains("No such file or directory")
            }
        }
    }

    @Test("reading a missing file is .inputUnavailable naming the path")
    func missingInput() {
        #expect { try CSVFile.read(ResultRow.self, from: "/nonexistent/results.csv") } throws: { error in
            guard let error = error as? MetricsError else { return false }
            return error.kind == .inputUnavailable && error.file == "/nonexistent/results.csv"
        }
    }

    /// Issue 24: `compare`, `report` and `baseline update` read results files as `check`
    /// does: a row of the identity and repetition of an earlier one is refused with both lines;
    /// a history file, which repeats them by design, is read with them.
    @Test func aRowGivenTwiceIsRefusedExceptInAHistory() throws {
        try Self.withTemporaryDirectory { directory in
            let path = directory + "/twice.csv"
            let rows = [ResultRowTests.sampleRow(repetition: 1), ResultRowTests.sampleRow(repetition: 2)]
            try CSVFile.write(rows + [rows[0]], to: path)
            #expect {
                try CSVFile.readResults(path)
            } throws: { error in
                guard let error = error as? MetricsError else { return false }
                return error.kind == .malformedInput && error.line == 4 && error.message.contains("repeats line 2")
                    && error.message.contains("repetition 1")
            }
            #expect(throws: MetricsError.self) { try CSVFile.forEachResult(path) { _, _ in } }
            #expect(try CSVFile.readResults(path, repeatedRows: .allowed).count == 3)
            try CSVFile.write(rows, to: path)
            #expect(try CSVFile.readResults(path) == rows)
        }
    }

    @Test("history append writes the header once and keeps earlier rows")
    func historyAppend() throws {
        try Self.withTemporaryDirectory { directory in
            let path = directory + "/history.csv"
            let first = ResultRowTests.sampleRow(repetition: 1)
            let second = ResultRowTests.sampleRow(repetition: 2)
            try CSVFile.append([first], toHistory: path)
            try CSVFile.append([second, first], toHistory: path)
            #expect(try CSVFile.read(ResultRow.self, from: path) == [first, second, first])
            let text = try Self.contents(path)
            #expect(text.components(separatedBy: "schema_version,").count == 2, "one header")
            // An empty file counts as new.
            try AtomicFile.write("", to: directory + "/empty.csv")
            try CSVFile.append([first], toHistory: directory + "/empty.csv")
            #expect(try CSVFile.read(ResultRow.self, from: directory + "/empty.csv") == [first])
        }
    }

    @Test("history append refuses a file with another header, and one whose last line is cut")
    func historyAppendRefusals() throws {
        try Self.withTemporaryDirectory { directory in
            let other = directory + "/other.csv"
            let foreign = "schema_version,timestamp_utc,something_else\n1,x,y\n"
            try AtomicFile.write(foreign, to: other)
            #expect { try CSVFile.append([ResultRow()], toHistory: other) } throws: { error in
                guard let error = error as? MetricsError else { return false }
                return error.kind == .outputFailed && error.message.contains("column 3 is 'something_else'")
                    && error.message.contains("start a new history file")
            }
            #expect(try Self.contents(other) == foreign, "refused append leaves the file untouched")

            let cut = directory + "/cut.csv"
            let text = try ResultRow.csvText([ResultRowTests.sampleRow()])
            try AtomicFile.write(String(text.dropLast(3)), to: cut)
            #expect { try CSVFile.append([ResultRow()], toHistory: cut) } throws: { error in
                (error as? MetricsError)?.message.contains("does not end with a line break") == true
            }
        }
    }

    @Test("concurrent history appends keep every row: one locked in-place write each")
    func concurrentHistoryAppends() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pagebench-history-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/history.csv"
        let appenders = 12
        let rowsEach = 5
        try await withThrowingTaskGroup(of: Void.self) { group in
            for appender in 0..<appenders {
                group.addTask {
                    for batch in 0..<rowsEach {
                        try CSVFile.append(
                            [ResultRowTests.sampleRow(repetition: appender * 100 + batch + 1)],
                            toHistory: path
                        )
                    }
                }
            }
            try await group.waitForAll()
        }
        let rows = try CSVFile.read(ResultRow.self, from: path)
        #expect(rows.count == appenders * rowsEach)
        #expect(Set(rows.map(\.repetition)).count == appenders * rowsEach)
        // The header is written once, by whichever appender came first.
        #expect(try Self.contents(path).components(separatedBy: "schema_version,").count == 2)
    }

    /// Issue 39: a CSV of one endless line is refused once a line passes 16 MiB, not held whole.
    @Test func aRecordLongerThanTheBoundIsRefused() throws {
        try Self.withTemporaryDirectory { directory in
            let path = directory + "/long.csv"
            try Data(repeating: UInt8(ascii: "a"), count: 17 << 20).write(to: URL(fileURLWithPath: path))
            #expect {
                _ = try CSVFile.readResults(path)
            } throws: { error in
                (error as? MetricsError)?.kind == .malformedInput
                    && "\(error)".hasSuffix("a line longer than 16 MiB; is it a CSV file?")
            }
        }
    }

    @Test("a history path that is not a regular file is refused, and nothing is replaced")
    func historyMustBeARegularFile() throws {
        try Self.withTemporaryDirectory { directory in
            let fifo = directory + "/fifo"
            #expect(mkfifo(fifo, 0o644) == 0)
            do {
                try CSVFile.append([ResultRowTests.sampleRow(repetition: 1)], toHistory: fifo)
                Issue.record("appending to a FIFO was accepted")
            } catch let error as MetricsError {
                #expect(error.kind == .outputFailed)
                #expect(error.description.contains("not a regular file"))
            }
            var status = stat()
            #expect(lstat(fifo, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO)
            do {
                try CSVFile.append([ResultRowTests.sampleRow(repetition: 1)], toHistory: directory)
                Issue.record("appending to a directory was accepted")
            } catch let error as MetricsError {
                #expect(error.kind == .outputFailed)
            }
        }
    }

    /// H4 added the stage columns (and drains/s, page p50) to the time series: a file written
    /// before them still reads, with them empty; a file with only some of them is refused.
    @Test func timeSeriesWrittenBeforeStagesStillReads() throws {
        let old =
            "scenario,pager_kind,concurrency,repetition,elapsed_s,warmup,pages_per_s,page_latency_p99_ns,allocated_bytes,rss_bytes\n"
            + "default,loop,8,1,1,0,1234.5,88000,1048576,41943040\n"
        let rows = try TimeSeriesRow.parseCSV(old, file: "old.csv")
        #expect(rows.count == 1 && rows[0].stage == nil && rows[0].activePagers == nil && rows[0].drainsPerSecond == 0)
        #expect(rows[0].pagesPerSecond == 1234.5)
        let partly = old.replacingOccurrences(of: "rss_bytes\n", with: "rss_bytes,stage\n").replacingOccurrences(
            of: "41943040\n",
            with: "41943040,2\n"
        )
        #expect(throws: MetricsError.self) { try TimeSeriesRow.parseCSV(partly, file: "partly.csv") }
    }

    @Test("time series rows round-trip through a file")
    func timeSeries() throws {
        try Self.withTemporaryDirectory { directory in
            let rows = [
                TimeSeriesRow(
                    scenario: "default",
                    pagerKind: "loop",
                    concurrency: 8,
                    repetition: 1,
                    elapsedSeconds: 1,
                    isWarmup: true,
                    pagesPerSecond: 1234.5,
                    pageLatencyP99Nanoseconds: 88_000,
                    allocatedBytes: 1 << 20,
                    rssBytes: 40 << 20
                ),
                TimeSeriesRow(
                    scenario: "default",
                    pagerKind: "loop",
                    concurrency: 8,
                    repetition: 1,
                    elapsedSeconds: 2,
                    isWarmup: false,
                    pagesPerSecond: 0,
                    pageLatencyP99Nanoseconds: nil,
                    allocatedBytes: 2 << 20,
                    rssBytes: 41 << 20
                ),
            ]
            let path = directory + "/series.csv"
            try CSVFile.write(rows, to: path)
            #expect(try CSVFile.read(TimeSeriesRow.self, from: path) == rows)
            #expect(
                TimeSeriesRow.csvHeader.joined(separator: ",")
                    == "scenario,pager_kind,concurrency,repetition,elapsed_s,warmup,pages_per_s,page_latency_p99_ns,allocated_bytes,rss_bytes,drains_per_s,page_latency_p50_ns,stage,active_pagers,target_pagers,target_drains_per_s"
            )
        }
    }
}

/// Issue 12: atomic replacement replaces regular files only, follows links, keeps modes.
@Suite("AtomicFile replaces only regular files")
struct AtomicFileTargetTests {
    @Test("a directory, a FIFO or a device is refused (write and precheck) and left as it was")
    func nonRegularFilesAreRefused() throws {
        try CSVFileTests.withTemporaryDirectory { directory in
            let fifo = directory + "/fifo"
            #expect(mkfifo(fifo, 0o644) == 0)
            let subdirectory = directory + "/dir"
            try FileManager.default.createDirectory(atPath: subdirectory, withIntermediateDirectories: false)
            for (path, what) in [(fifo, "a FIFO"), (subdirectory, "a directory"), ("/dev/null", "a character device")] {
                for attempt in [{ try AtomicFile.write("x", to: path) }, { try AtomicFile.checkWritable(path) }] {
                    #expect { try attempt() } throws: { error in
                        (error as? MetricsError)?.kind == .outputFailed && "\(error)".contains("it is \(what)")
                            && "\(error)".contains("not a regular file")
                    }
                }
            }
            var status = stat()
            #expect(stat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
            #expect(stat("/dev/null", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
            #expect(try CSVFileTests.leftovers(directory).isEmpty)
        }
    }

    @Test("a symbolic link is followed: its target is replaced, the link kept; a replaced file keeps its mode")
    func linksAreFollowedAndModesKept() throws {
        try CSVFileTests.withTemporaryDirectory { directory in
            let target = directory + "/target.csv"
            let link = directory + "/link.csv"
            try AtomicFile.write("old\n", to: target)
            #expect(chmod(target, 0o600) == 0)
            #expect(symlink("target.csv", link) == 0)
            try AtomicFile.write("new\n", to: link)
            var status = stat()
            #expect(lstat(link, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK)
            #expect(try CSVFileTests.contents(target) == "new\n")
            #expect(stat(target, &status) == 0 && status.st_mode & 0o777 == 0o600)
        }
    }

    @Test(
        "the precheck refuses a directory this process cannot write, and accepts a path whose directories are still to be made"
    )
    func precheckLooksAtTheDirectory() throws {
        try CSVFileTests.withTemporaryDirectory { directory in
            try AtomicFile.checkWritable(directory + "/new/deeper/file.csv")
            #expect { try AtomicFile.checkWritable("/proc/self/nope/file.csv") } throws: { _ in true }
        }
    }

    /// Issue 36 (`check --github`'s step summary): an appender that needs only the size gets
    /// the file's size under the lock, appends after what is there, and never truncates; an
    /// empty addition writes nothing; a FIFO is refused without blocking.
    @Test func appendingBySizeKeepsWhatIsThere() throws {
        try CSVFileTests.withTemporaryDirectory { directory in
            let path = directory + "/summary.md"
            var sizes: [Int] = []
            try AtomicFile.appendLocked(
                to: path,
                sizedBy: {
                    sizes.append($0)
                    return "first\n"
                }
            )
            try AtomicFile.appendLocked(
                to: path,
                sizedBy: {
                    sizes.append($0)
                    return "second\n"
                }
            )
            try AtomicFile.appendLocked(
                to: path,
                sizedBy: {
                    sizes.append($0)
                    return ""
                }
            )
            #expect(sizes == [0, 6, 13])
            #expect(try CSVFileTests.contents(path) == "first\nsecond\n")
            #expect(mkfifo(directory + "/fifo", 0o644) == 0)
            #expect { try AtomicFile.appendLocked(to: directory + "/fifo", sizedBy: { _ in "x" }) } throws: { error in
                (error as? MetricsError)?.kind == .outputFailed && "\(error)".contains("not a regular file")
            }
        }
    }
}
