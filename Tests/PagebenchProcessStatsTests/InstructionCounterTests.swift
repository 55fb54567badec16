import Foundation
import PagebenchMetrics
import Testing

@testable import PagebenchProcessStats

/// H10: the instruction count of a phase is read back from the dump callgrind writes for it.
@Suite struct InstructionCounterTests {
    /// The head and tail of a real dump (valgrind 3.19, `--dump-instr=no`), its cost lines cut.
    static let dump = """
        # callgrind format
        version: 1
        creator: callgrind-3.19.0
        pid: 21794
        cmd:  /tmp/pb-s run target1.json --target-file serve-rest.json --quiet
        part: 1


        desc: I1 cache: 
        desc: D1 cache: 
        desc: LL cache: 

        desc: Timerange: Basic block 0 - 126217691
        desc: Trigger: Client Request: pagebench phase 1

        positions: line
        events: Ir
        summary: 0


        ob=(1) /tmp/pb-s
        fl=(1) ???
        fn=(1) $s13PagebenchHTTP10JSONReaderV10scanString
        0 125804460

        totals: 468866538
        """

    @Test func theTotalOfTheRequestedDumpIsRead() throws {
        #expect(
            try InstructionCounter.total(ofDump: Self.dump, label: "pagebench phase 1", file: "cg.out.1") == 468_866_538
        )
    }

    @Test func anotherDumpOrOneWithoutATotalIsRefused() {
        #expect(throws: MetricsError.self) {
            try InstructionCounter.total(ofDump: Self.dump, label: "pagebench phase 2", file: "cg.out.1")
        }
        let noTotal = Self.dump.replacingOccurrences(of: "totals: 468866538", with: "")
        #expect(throws: MetricsError.self) {
            try InstructionCounter.total(ofDump: noTotal, label: "pagebench phase 1", file: "cg.out.1")
        }
        let cacheEventsFirst = Self.dump.replacingOccurrences(of: "events: Ir", with: "events: Dr Ir")
        #expect(throws: MetricsError.self) {
            try InstructionCounter.total(ofDump: cacheEventsFirst, label: "pagebench phase 1", file: "cg.out.1")
        }
    }

    /// Outside valgrind a counter's stop finds no dump and says so; it never returns a count.
    @Test func outsideValgrindThereIsNoCount() throws {
        #expect(!InstructionCounter.isRunningOnValgrind)
        let counter = InstructionCounter(outputFile: "/nonexistent-directory/callgrind.out")
        counter.start()
        #expect {
            _ = try counter.stop()
        } throws: { error in
            (error as? MetricsError)?.message.contains("is this process running under valgrind") == true
        }
    }
}
