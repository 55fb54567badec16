import Foundation
import Testing

@testable import PagebenchBase

/// The shared helpers: the generator and hash every seeded figure depends on (H3), the
/// number text of tables and reports, the file reader.
@Suite struct SplitMix64Tests {
    @Test("H3: the reference SplitMix64 sequence, on every machine")
    func h3ReferenceSequence() {
        // SplitMix64 seeded with 0 (Steele, Lea, Flood 2014; the sequence java.util.SplittableRandom starts with).
        var random = SplitMix64(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(random.next() == 0x06C4_5D18_8009_454F)
    }

    @Test("H3: next(below:) draws what the plain multiply-shift drew, for the bounds a run uses")
    func h3UnbiasedKeepsTheOldDraws() {
        for bound in [1, 2, 3, 7, 10, 64, 1000, 1_000_003] {
            var unbiased = SplitMix64(seed: UInt64(bound))
            var plain = SplitMix64(seed: UInt64(bound))
            for _ in 0..<10_000 {
                let old = Int(plain.next().multipliedFullWidth(by: UInt64(bound)).high)
                #expect(unbiased.next(below: bound) == old, "bound \(bound)")
            }
        }
    }

    @Test("next(below:) rejects the biased low products: a bound near 2^63 stays in range and uniform halves")
    func unbiasedForHugeBounds() {
        let bound = Int(1 << 62) + 1
        var random = SplitMix64(seed: 9)
        var low = 0
        for _ in 0..<4000 {
            let value = random.next(below: bound)
            #expect((0..<bound).contains(value))
            if value < bound / 2 { low += 1 }
        }
        #expect((1800...2200).contains(low))
    }

    @Test("stream generators do not depend on how many numbers other items drew")
    func streams() {
        var a = SplitMix64(seed: 5, stream: 1, index: 7)
        var b = SplitMix64(seed: 5, stream: 1, index: 7)
        _ = SplitMix64(seed: 5, stream: 1, index: 6)
        #expect(a.next() == b.next())
        var other = SplitMix64(seed: 5, stream: 2, index: 7)
        #expect(other.next() != SplitMix64(seed: 5, stream: 1, index: 7).nextUnitSample())
    }

    @Test func nextBelowIsUniformEnough() {
        var generator = SplitMix64(seed: 3)
        var counts = [Int](repeating: 0, count: 5)
        for _ in 0..<50_000 { counts[generator.next(below: 5)] += 1 }
        #expect(counts.allSatisfy { abs($0 - 10_000) < 400 })
    }
}

extension SplitMix64 {
    fileprivate func nextUnitSample() -> UInt64 {
        var copy = self
        return copy.next()
    }
}

@Suite struct StableHashTests {
    @Test("FNV-1a 64 of the standard test vectors")
    func fnv() {
        #expect(StableHash.fnv1a64("") == 0xCBF2_9CE4_8422_2325)
        #expect(StableHash.fnv1a64("a") == 0xAF63_DC4C_8601_EC8C)
        #expect(StableHash.fnv1a64("foobar") == 0x8594_4171_F739_67E8)
        #expect(StableHash.hex(0xAB) == "00000000000000ab")
    }
}

@Suite struct MathTests {
    @Test("power: exactly 1 for exponent 0; exp and log agree with Foundation's")
    func power() {
        #expect(Math.power(123.4, 0) == 1)
        #expect(Math.power(2, 10).rounded() == 1024)
        for x in [0.5, 1, 2.5, 1e6] {
            #expect(Math.log(x) == Foundation.log(x))
            #expect(Math.exp(x / 10) == Foundation.exp(x / 10))
        }
    }
}

@Suite struct NumberTextTests {
    @Test("short forms (progress, summary table) and significant-digit forms (reports)")
    func forms() {
        #expect(NumberText.count(950) == "950")
        #expect(NumberText.count(12_345) == "12.3k")
        #expect(NumberText.nanoseconds(12_345) == "12.3µs")
        #expect(NumberText.bytes(3 << 20) == "3.0MiB")
        #expect(NumberText.seconds(125) == "2m05s")
        // Issue 24: an ETA at a near-zero rate converted 1e300 seconds to Int and trapped.
        #expect(NumberText.seconds(1e300) == ">1e13s")
        #expect(NumberText.seconds(9.9e12).hasSuffix("s"))
        #expect(NumberText.fixed(-1.005, 1) == "-1.0")
        #expect(NumberText.number(1234.56) == "1235")
        #expect(NumberText.number(0.012345) == "0.01235")
        #expect(NumberText.number(2e16) == "2.000e+16")
        #expect(NumberText.value(12_345, unit: "ns") == "12.35 µs")
        #expect(NumberText.percent(-0.045) == "−4.5 %")
        #expect(NumberText.compact(2_500_000) == "2.5M")
    }

    @Test("number(_:digits:) prints exactly what Foundation's String(format:) printed before")
    func sameAsFoundation() {
        for value in [1234.5, 0.125, 2.5e-7, 9.99999e14, 123_456.789, -0.5, 1e-6, 42] {
            for digits in [1, 3, 4] {
                let exponent = Int(Foundation.log10(abs(value)).rounded(.down))
                var expected: String
                if abs(value) >= 1e15 || abs(value) < 1e-6 {
                    expected = String(format: "%.\(max(digits - 1, 0))e", value)
                } else {
                    expected = String(format: "%.\(max(0, digits - 1 - exponent))f", value)
                    if expected.contains(".") {
                        while expected.hasSuffix("0") { expected.removeLast() }
                        if expected.hasSuffix(".") { expected.removeLast() }
                    }
                }
                #expect(NumberText.number(value, digits: digits) == expected, "\(value) \(digits)")
            }
        }
    }

    @Test func shortFormsAreExact() {
        #expect(NumberText.count(950) == "950")
        #expect(NumberText.count(12_345) == "12.3k")
        #expect(NumberText.count(1_234_567) == "1.23M")
        #expect(NumberText.nanoseconds(850) == "850ns")
        #expect(NumberText.nanoseconds(12_340) == "12.3µs")
        #expect(NumberText.nanoseconds(4_560_000) == "4.56ms")
        #expect(NumberText.bytes(512) == "512B")
        #expect(NumberText.bytes(3 << 20) == "3.0MiB")
        #expect(NumberText.seconds(125) == "2m05s")
        #expect(NumberText.fixed(-0.25, 1) == "-0.3" || NumberText.fixed(-0.25, 1) == "-0.2")
    }

    @Test func valueScalesUnits() {
        #expect(NumberText.value(1_500, unit: "ns") == "1.5 µs")
        #expect(NumberText.value(2_500_000, unit: "ns") == "2.5 ms")
        #expect(NumberText.value(3 * 1_048_576, unit: "bytes") == "3 MiB")
        #expect(NumberText.number(1234.5678) == "1235")
        #expect(NumberText.number(0.012345) == "0.01235")
        #expect(NumberText.percent(-0.1234) == "−12.3 %")
        #expect(NumberText.percent(0.05) == "+5 %")
        #expect(NumberText.compact(2_500_000) == "2.5M")
        #expect(NumberText.compact(12_345) == "12.3k")
        #expect(NumberText.compact(950) == "950")
    }
}

@Suite struct FileSystemTests {
    @Test("readText: missing, a directory, not UTF-8, and a file read whole; createParentDirectory makes the parents")
    func reading() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-base-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect { try FileSystem.readText(directory + "/none") } throws: {
            ($0 as? FileSystem.Failure)?.kind == .missing
        }
        let nested = directory + "/a/b/c.txt"
        try FileSystem.createParentDirectory(of: nested)
        var isDirectory = false
        #expect(FileSystem.exists(directory + "/a/b", isDirectory: &isDirectory) && isDirectory)
        // Issue 12: a directory given as a file is said to be one, not "cannot read (Is a directory (errno 21))".
        #expect { try FileSystem.readText(directory + "/a") } throws: {
            guard let failure = $0 as? FileSystem.Failure else { return false }
            return failure.kind == .directory && failure.path == directory + "/a"
                && failure.reason == "is a directory, not a file; give the path of a file"
        }
        let text = String(repeating: "pagebench ", count: 20_000)
        try text.write(toFile: nested, atomically: true, encoding: .utf8)
        #expect(try FileSystem.readText(nested) == text)
        try Data([0xFF, 0xFE]).write(to: URL(fileURLWithPath: nested))
        #expect { try FileSystem.readText(nested) } throws: { ($0 as? FileSystem.Failure)?.kind == .notUTF8 }
        try "x".write(toFile: directory + "/file", atomically: true, encoding: .utf8)
        #expect { try FileSystem.createParentDirectory(of: directory + "/file/y") } throws: {
            ($0 as? FileSystem.Failure)?.kind == .notADirectory
        }
    }
}

@Suite struct FileSystemInputTests {
    @Test("issue 12: why a file cannot be opened is said plainly, one reason per errno")
    func openFailuresArePlain() {
        #expect(FileSystem.openFailure("/x", code: ENOENT).kind == .missing)
        let denied = FileSystem.openFailure("/x", code: EACCES)
        #expect(denied.kind == .unreadable)
        #expect(denied.description == "/x: permission denied: this user may not read it; check its permissions")
        #expect(FileSystem.openFailure("/x/y", code: ENOTDIR).reason.hasPrefix("no such file"))
        #expect(FileSystem.openFailure("/x", code: EMFILE).reason.hasPrefix("cannot be opened (Too many open files"))
    }

    @Test("InputFile reads a file in pieces of at most the size asked, and says when it has ended")
    func readsInPieces() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-pieces-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = (0..<1000).map { UInt8($0 % 251) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = try FileSystem.InputFile(path)
        var read: [UInt8] = []
        var pieces = 0
        while try file.read(appendingTo: &read, atMost: 300) { pieces += 1 }
        #expect(read == bytes)
        #expect(pieces == 3)  // 300, 300, 300, then 100 and the end
        #expect(try FileSystem.readBytes(path) == bytes)
    }

    @Test("issue 39: a FIFO or a device is refused by name, without waiting for a writer or reading")
    func fifosAndDevicesAreRefused() throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-fifo-\(UUID())").path
        #expect(mkfifo(fifo, 0o644) == 0)
        defer { try? FileManager.default.removeItem(atPath: fifo) }
        for (path, what) in [
            (fifo, "a FIFO (named pipe)"), ("/dev/zero", "a character device"), ("/dev/null", "a character device"),
        ] {
            #expect {
                try FileSystem.readBytes(path)
            } throws: {
                guard let failure = $0 as? FileSystem.Failure else { return false }
                return failure.kind == .notARegularFile
                    && failure.description == "\(path): is \(what), not a regular file; give the path of a file"
            }
        }
        #expect(throws: FileSystem.Failure.self) { _ = try FileSystem.InputFile(fifo) }
        // /proc files are regular files of size 0: still read whole.
        #expect(try FileSystem.readText("/proc/self/status").contains("Pid:"))
        #expect(FileSystem.maximumInputBytes == 256 << 20)
    }
}

/// The one conversion of a `Duration` to nanoseconds, signed (NIO) and non-negative (latencies,
/// deadlines): whole nanoseconds towards zero, saturating instead of trapping.
@Suite struct DurationNanosecondsTests {
    @Test func conversionsRoundTowardsZeroAndSaturate() {
        #expect(Duration.milliseconds(5).clampedNanoseconds == 5_000_000)
        #expect((Duration.seconds(2) + .nanoseconds(1)).clampedNanoseconds == 2_000_000_001)
        #expect(Duration.nanoseconds(-3).clampedNanoseconds == -3)
        #expect(Duration.seconds(Int64.max).clampedNanoseconds == .max)
        #expect(Duration.seconds(Int64.min).clampedNanoseconds == .min)
        #expect(Duration.nanoseconds(-3).nonNegativeNanoseconds == 0)
        #expect(Duration.seconds(Int64.max).nonNegativeNanoseconds == .max)
        #expect((Duration.seconds(1) + .nanoseconds(7)).nonNegativeNanoseconds == 1_000_000_007)
    }
}

@Suite struct StrictJSONDepthTests {
    /// Issue 24: the scanner recursed once per bracket, so a file of 300,000 `[` (which every
    /// JSON parser refuses, and whose syntax error this scanner then describes) overflowed
    /// the stack. Now nesting past the bound is a syntax error saying so.
    @Test func nestingPastTheBoundIsASyntaxErrorNotAStackOverflow() {
        let deep = Array(String(repeating: "[", count: 300_000).utf8)
        #expect(
            StrictJSON.syntaxError(in: deep)?.contains("expected objects and arrays nested at most 512 deep") == true
        )
        #expect(StrictJSON.firstProblem(in: deep) == nil)
        let bounded = Array((String(repeating: "[", count: 512) + String(repeating: "]", count: 512)).utf8)
        #expect(StrictJSON.syntaxError(in: bounded) == nil)
        let nulls = Array((String(repeating: "{\"a\":", count: 600) + "null" + String(repeating: "}", count: 600)).utf8)
        #expect(StrictJSON.firstProblem(in: nulls) == nil)  // past the bound: left to the parser
    }

    /// Issue 28: the loader's tree is read with the one tokenizer, which keeps open containers
    /// in a list: a million `[` or `{"a":` is a located error from the loader, not a crash.
    @Test(arguments: ["[", "{\"a\":"])
    func aMillionLevelsAreALocatedErrorOfTheLoader(opening: String) {
        let text = Array(String(repeating: opening, count: 1_000_000).utf8)
        do {
            _ = try StrictJSON.Document(bytes: text)
            Issue.record("accepted")
        } catch {
            guard case .notJSON(let located?, _) = error else {
                Issue.record("expected a located notJSON, got \(error)")
                return
            }
            let column = opening == "[" ? 513 : 512 * 5 + 1
            #expect(
                located
                    == "line 1, column \(column): expected objects and arrays nested at most 512 deep, found '\(opening.first!)'"
            )
        }
    }
}

/// Issue 35: the one duration grammar, minutes and hours included.
@Suite struct DurationTextTests {
    @Test func unitsFromNanosecondsToHours() {
        #expect(DurationText.nanoseconds("40ns") == 40)
        #expect(DurationText.nanoseconds("250us") == 250_000)
        #expect(DurationText.nanoseconds("250µs") == 250_000)
        #expect(DurationText.nanoseconds("500ms") == 500_000_000)
        #expect(DurationText.nanoseconds("2s") == 2e9)
        #expect(DurationText.nanoseconds("2m") == 120e9)
        #expect(DurationText.nanoseconds(" 1.5 h ") == 5400e9)
        #expect(DurationText.nanoseconds("2M") == 120e9)
    }

    @Test func whatIsNotADurationIsNil() {
        for text in ["", "2", "m", "2x", "-1s", "inf s", "nanm", "2 minutes", "1e400s"] {
            #expect(DurationText.nanoseconds(text) == nil, "\(text)")
        }
    }
}

/// Issue 35: one of a counted unit reads singular.
@Suite struct NumberTextUnitTests {
    @Test func oneOfACountedUnitIsSingular() {
        #expect(NumberText.value(1, unit: "pages") == "1 page")
        #expect(NumberText.value(2, unit: "pages") == "2 pages")
        #expect(NumberText.value(1, unit: "pages/s") == "1 pages/s")
        #expect(NumberText.value(1, unit: "capacity units") == "1 capacity units")
    }
}
