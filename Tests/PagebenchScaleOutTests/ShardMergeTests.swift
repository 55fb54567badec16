import Foundation
import PagebenchBase
import PagebenchHarness
import PagebenchMetrics
import PagebenchPage
import PagebenchScaleOut
import PagebenchStore
import PagebenchTestSupport
import Testing

/// Result shards: a workload run as 4 shards and merged gives the deterministic figures of
/// one process (H3), merged percentiles are those of one histogram holding every sample,
/// and shards that do not belong together are refused with a message naming the problem.
@Suite struct ShardMergeTests {
    static let context = RunContext(
        timestampUTC: "2026-11-22T10:00:00Z",
        pagebenchVersion: "test",
        gitCommit: "abc",
        swiftVersion: "6.3",
        buildConfiguration: "debug",
        host: "test-host",
        cores: 2
    )

    static let store = StoreConfiguration(
        partitions: 12,
        itemsPerPartition: .zipf(mean: 200, exponent: 1.1),
        selectivity: 0.2,
        clustering: .runs(length: 25)
    )

    /// Workloads whose deterministic figures are exact for a drain-count bound.
    static func configure(_ workload: inout Workload, variant: Int) {
        switch variant {
        case 0:  // uniform partitions, abandoned drains
            workload.read = .partition(.uniform)
            workload.drain = .abandon(probability: 0.2)
        case 1:  // zipf partitions, first pages, Apollo loadNext
            workload.read = .partition(.zipf(exponent: 1.3))
            workload.drain = .firstPages(4)
            workload.pager = .apolloLoadNext
        case 2:  // parallel-scan segments
            workload.read = .segment(total: 5)
            workload.limit = 25
        default:  // open loop, Poisson arrivals
            workload.load = .open(drainsPerSecond: 200_000, poisson: true)
            workload.pager = .loop
        }
    }

    func shardScenario(_ index: Int) -> Scenario {
        scenario("merge-\(index)", store: Self.store) {
            $0.filter = .matching
            $0.limit = 10
            $0.bound = .drains(61)
            Self.configure(&$0, variant: index)
        }
    }

    /// Runs `scenario` at `concurrency` as shard `shard` and returns its shard file, encoded
    /// to JSON and read back as `pagebench merge` would.
    func shardFile(_ scenario: Scenario, concurrency: Int, shard: Shard) async throws -> ShardFile {
        var options = PhaseRunner<StoreSource>.Options()
        options.shard = shard
        let result = try await storeRunner(scenario).run(concurrency: concurrency, repetition: 1, options: options)
        let output = SweepRunner.Output(rows: [result.row(context: Self.context)], results: [result], timeSeries: [])
        let file = ShardFile(shard: shard, startAt: nil, output: output)
        let decoded = try ShardFile.decode(json: Data(try file.jsonText().utf8), file: "shard-\(shard.index).json")
        #expect(decoded == file, "the shard file does not read back as written")
        return decoded
    }

    @Test(arguments: 0..<4)
    func h3FourShardsMergeToTheDeterministicFiguresOfOneProcess(workload: Int) async throws {
        let scenario = shardScenario(workload)
        let concurrency = 6
        let whole = try await storeRunner(scenario).run(concurrency: concurrency, repetition: 1)
        let wholeRow = whole.row(context: Self.context)
        var inputs: [ShardMerge.Input] = []
        for shard in Shard.all(count: 4) {
            let file = try await shardFile(scenario, concurrency: concurrency, shard: shard)
            #expect(file.phases.map(\.pagers) == [shard.pagers(ofConcurrency: concurrency)])
            inputs.append(ShardMerge.Input(path: "shard-\(shard.index).json", file: file))
        }
        // Each shard ran its share only: 6 pager slots over 4 shards are {0,4} {1,5} {2} {3};
        // drain d goes with slot d mod 6, and slot 0 has the 61st drain.
        #expect(inputs.map { $0.file.phases[0].metrics.drains } == [21, 20, 10, 10])
        let merged = try #require(try ShardMerge.merge(inputs.reversed()).first)
        let figures = DeterministicFigures(TaskMetrics.merged(inputs.map { $0.file.phases[0].metrics }))
        #expect(figures == DeterministicFigures(whole.metrics))
        #expect(figures.drains == 61)
        for (name, value, expected) in [
            ("drains", merged.drains, wholeRow.drains), ("pages", merged.pages, wholeRow.pages),
            ("items", merged.items, wholeRow.items), ("scanned_items", merged.scannedItems, wholeRow.scannedItems),
            ("scanned_bytes", merged.scannedBytes, wholeRow.scannedBytes),
            ("empty_pages_wasted", merged.emptyPagesWasted, wholeRow.emptyPagesWasted),
            ("empty_pages_final", merged.emptyPagesFinal, wholeRow.emptyPagesFinal),
            ("pages_per_drain_max", merged.pagesPerDrainMax, wholeRow.pagesPerDrainMax),
            ("concurrency", merged.concurrency, 6), ("target_drains", merged.plannedDrains ?? -1, 61),
        ] {
            #expect(value == expected, "\(name): merged \(value), one process \(expected)")
        }
        #expect(merged.pagesPerDrainMean == wholeRow.pagesPerDrainMean)
        #expect(merged.emptyPageRate == wholeRow.emptyPageRate)
        #expect(merged.configHash == wholeRow.configHash && merged.scenario == wholeRow.scenario)
        #expect(
            merged.loadModel == wholeRow.loadModel && merged.plannedDrainsPerSecond == wholeRow.plannedDrainsPerSecond
        )
        // Every page and drain was timed once, in exactly one shard.
        #expect(merged.pageLatency != nil && merged.drainLatency != nil)
        let pageSamples = inputs.reduce(0) { $0 + $1.file.phases[0].metrics.pageLatency.count }
        #expect(pageSamples == UInt64(merged.pages))
    }

    /// Percentiles of the merge are read from the added histograms: identical to one
    /// histogram that recorded every sample, and not the mean of the shards' percentiles.
    @Test func mergedPercentilesEqualThoseOfOneHistogramOfAllSamples() throws {
        var random = SeededSamples(seed: 11)
        var all = TaskMetrics()
        var shards = [TaskMetrics](repeating: TaskMetrics(), count: 4)
        for sample in 0..<20_000 {
            // Shards see different distributions: shard 3 is ten times slower.
            let shard = sample % 4
            let page = random.latency() * (shard == 3 ? 10 : 1)
            let drain = random.latency()
            all.recordPage(
                itemCount: 1,
                scannedCount: 2,
                scannedBytes: 30,
                hasNextToken: true,
                latencyNanoseconds: page
            )
            shards[shard].recordPage(
                itemCount: 1,
                scannedCount: 2,
                scannedBytes: 30,
                hasNextToken: true,
                latencyNanoseconds: page
            )
            if sample % 10 == 0 {
                all.recordDrain(pageCount: 10, latencyNanoseconds: drain, correctedLatencyNanoseconds: drain + 5)
                shards[shard].recordDrain(
                    pageCount: 10,
                    latencyNanoseconds: drain,
                    correctedLatencyNanoseconds: drain + 5
                )
                all.recordCancellation(latencyNanoseconds: drain / 3, pagesAfterCancel: 1)
                shards[shard].recordCancellation(latencyNanoseconds: drain / 3, pagesAfterCancel: 1)
            }
        }
        let inputs = try Shard.all(count: 4).map { shard in
            let file = ShardFile(
                shard: shard,
                startAt: "2026-11-22T10:00:00.000Z",
                phases: [phase(shards[shard.index], shard: shard)]
            )
            return ShardMerge.Input(
                path: "s\(shard.index)",
                file: try ShardFile.decode(json: Data(try file.jsonText().utf8), file: "s\(shard.index)")
            )
        }
        let row = try #require(try ShardMerge.merge(inputs).first)
        #expect(row.pageLatency == all.pageLatency.percentiles)
        #expect(row.drainLatency == all.drainLatency.percentiles)
        #expect(row.drainLatencyCorrected == all.drainLatencyCorrected?.percentiles)
        #expect(row.cancellationLatency == all.cancellationLatency?.percentiles)
        #expect(
            row.pages == 20_000 && row.drains == 2_000 && row.cancellations == 2_000 && row.pagesAfterCancel == 2_000
        )
        // Averaging the shards' p99s would be wrong, and differs here.
        let averaged = shards.map { Double($0.pageLatency.valueAtPercentile(99)) }.reduce(0, +) / 4
        #expect(UInt64(averaged) != row.pageLatency?.p99Nanoseconds)
        // Rates: merged counts over the first start to the last end (shard 2 ends last).
        #expect(row.durationSeconds == 2.5)
        #expect(row.pagesPerSecond == 20_000 / 2.5)
        #expect(row.timestampUTC == "2026-11-22T10:00:00Z")
        #expect(row.cpuUserSeconds == 4 && row.peakRSSBytes == 4 * 1000)
    }

    /// A phase of a hand-made shard: starts at 10:00:00 UTC (+0.5 s for shard 1), lasts 2 s
    /// (2.5 s for shard 2).
    func phase(_ metrics: TaskMetrics, shard: Shard, concurrency: Int = 8, scenario: String = "hand") -> ShardPhase {
        var row = ResultRow()
        row.apply(Self.context)
        row.scenario = scenario
        row.configHash = "0123456789abcdef"
        row.seed = 42
        row.pagerKind = "streaming"
        row.loadModel = "closed"
        row.concurrency = concurrency
        row.repetition = 1
        row.limit = 10
        row.targetDurationSeconds = 2
        row.cpuUserSeconds = 1
        row.peakRSSBytes = 1000
        row.apply(metrics, measuredSeconds: 2)
        let start: UInt64 = 1_795_341_600_000_000_000 + (shard.index == 1 ? 500_000_000 : 0)
        return ShardPhase(
            scenario: scenario,
            configHash: row.configHash,
            seed: 42,
            concurrency: concurrency,
            repetition: 1,
            pagers: shard.pagers(ofConcurrency: concurrency),
            drains: nil,
            startedAtUnixNanoseconds: start,
            durationNanoseconds: shard.index == 2 ? 2_500_000_000 : 2_000_000_000,
            row: row,
            metrics: metrics
        )
    }

    func inputs(
        count: Int = 3,
        startAt: String? = nil,
        edit: (Int, inout ShardFile) -> Void = { _, _ in }
    ) -> [ShardMerge.Input] {
        Shard.all(count: count).map { shard in
            var metrics = TaskMetrics()
            metrics.recordPage(
                itemCount: 1,
                scannedCount: 1,
                scannedBytes: 1,
                hasNextToken: false,
                latencyNanoseconds: 100
            )
            var file = ShardFile(shard: shard, startAt: startAt, phases: [phase(metrics, shard: shard)])
            edit(shard.index, &file)
            return ShardMerge.Input(path: "shard-\(shard.index)-of-\(count).json", file: file)
        }
    }

    func mergeError(_ inputs: [ShardMerge.Input]) -> HarnessError? {
        do {
            _ = try ShardMerge.merge(inputs)
            return nil
        } catch {
            return error
        }
    }

    @Test func shardsOfOneRunMerge() throws {
        let rows = try ShardMerge.merge(inputs())
        #expect(rows.count == 1)
        #expect(rows[0].pages == 3)
    }

    /// H6: interrupted workers stop at different phases; the phases every shard reached merge,
    /// the cut-short one partial. Without the interruption mark the same files are refused.
    @Test func interruptedShardsMergeThePhasesEveryShardReached() throws {
        func files(interrupted: Bool) -> [ShardMerge.Input] {
            inputs { index, file in
                file.interrupted = interrupted
                file.phases[0].row.partial = index == 1 ? 1 : 0
                if index == 0 {
                    // This worker had begun the next phase when the signal came.
                    var next = self.phase(file.phases[0].metrics, shard: file.shard, concurrency: 16)
                    next.row.partial = 1
                    file.phases.append(next)
                }
            }
        }
        let rows = try ShardMerge.merge(files(interrupted: true))
        #expect(rows.map(\.concurrency) == [8])
        #expect(rows[0].partial == 1)
        #expect(mergeError(files(interrupted: false))?.message.contains("stopped early") == true)
    }

    @Test func missingDuplicateAndForeignShardsAreRefused() throws {
        let all = inputs()
        var error = mergeError([all[0], all[2]])
        #expect(error?.kind == .invalidShard)
        #expect(error?.message.contains("missing shard 1/3") == true, "\(error?.message ?? "")")

        error = mergeError([all[0], all[1], all[1], all[2]])
        #expect(error?.message.contains("shard 1/3 appears twice") == true, "\(error?.message ?? "")")

        error = mergeError([all[0], all[1], inputs(count: 4)[2]])
        #expect(error?.message.contains("split differently") == true, "\(error?.message ?? "")")

        error = mergeError(inputs { index, file in if index == 1 { file.startAt = "2026-11-22T10:00:00.000Z" } })
        #expect(error?.message.contains("shards of different runs") == true, "\(error?.message ?? "")")

        error = mergeError(
            inputs { index, file in
                if index == 2 {
                    file.phases[0].configHash = "ffffffffffffffff"
                    file.phases[0].row.configHash = "ffffffffffffffff"
                }
            }
        )
        #expect(error?.message.contains("shards of different runs") == true, "\(error?.message ?? "")")

        error = mergeError(inputs { index, file in if index == 2 { file.phases.append(file.phases[0]) } })
        #expect(error?.message.contains("has 1 phases but") == true, "\(error?.message ?? "")")

        error = mergeError(inputs { index, file in if index == 1 { file.phases[0].row.gitCommit = "def" } })
        #expect(error?.message.contains("git_commit") == true, "\(error?.message ?? "")")

        error = mergeError(inputs { index, file in if index == 0 { file.phases[0].pagers = 1 } })
        #expect(
            error?.message.contains("ran 1 pagers, but shard 0/3's share of 8 is 3") == true,
            "\(error?.message ?? "")"
        )

        error = mergeError([])
        #expect(error?.message.contains("no shard files") == true)
    }

    @Test func histogramsWithDifferentClampLimitsAreRefusedNotCrashed() {
        let error = mergeError(
            inputs { index, file in
                if index == 1 {
                    var recorder = LatencyRecorder(highestTrackableNanoseconds: 1_000_000)
                    recorder.record(nanoseconds: 100)
                    file.phases[0].metrics.pageLatency = recorder
                }
            }
        )
        #expect(error?.message.contains("different clamp limits") == true, "\(error?.message ?? "")")
    }

    /// Malformed files: each gets a message naming what is wrong (and exit 65 in the CLI).
    @Test(arguments: [
        ("[1, 2]", "not a JSON object"),
        (#"{"format": "something-else", "version": 1}"#, "not a pagebench shard file"),
        (#"{"format": "pagebench-shard", "version": 2}"#, "format version 2"),
        (
            #"{"format": "pagebench-shard", "version": 4, "shard": {"index": 0, "count": 1}, "startAt": null}"#,
            "missing key 'phases'"
        ),
        (
            #"{"format": "pagebench-shard", "version": 4, "shard": {"index": 3, "count": 2}, "startAt": null, "phases": []}"#,
            "'shard': "
        ),
        (
            #"{"format": "pagebench-shard", "version": 4, "shard": {"index": "0", "count": 2}, "startAt": null, "phases": []}"#,
            "'shard.index' must be a whole number, found the string \"0\""
        ),
        // Issue 24: a number that does not fit its field is named, not "The given data was not valid JSON."
        (
            #"{"format": "pagebench-shard", "version": 4, "shard": {"index": 0.5, "count": 2}, "startAt": null, "phases": []}"#,
            "'shard.index' must be a whole number, found 0.5"
        ),
        (
            #"{"format": "pagebench-shard", "version": 4, "shard": {"index": 0, "count": 1e300}, "startAt": null, "phases": []}"#,
            "'shard.count' must be a whole number, found 1e300"
        ),
    ])
    func malformedShardFilesAreRefused(json: String, expected: String) {
        guard let error = refusal(json) else { return }
        #expect(error.kind == .invalidShard)
        #expect(error.description.hasPrefix("bad.json: "))
        #expect(error.message.contains(expected), "\(error.message)")
    }

    /// The error decoding `json` as the shard file `bad.json` throws; when it decodes instead,
    /// records an issue at the caller and returns nil.
    func refusal(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> HarnessError? {
        do {
            _ = try ShardFile.decode(json: Data(json.utf8), file: "bad.json")
            Issue.record("decoded \(json)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    /// A `--target` shard's HTTP responses survive the file; an in-process shard writes null,
    /// a file of an earlier build without the key still reads, a bad key is named.
    @Test func httpResponsesRoundTripAndBadOnesAreNamed() throws {
        var file = inputs(count: 1)[0].file
        #expect(try file.jsonText().contains("\"httpResponses\" : null"))
        let withoutKey = try file.jsonText().replacingOccurrences(of: ",\n  \"httpResponses\" : null", with: "")
        #expect(!withoutKey.contains("httpResponses"))
        #expect(try ShardFile.decode(json: Data(withoutKey.utf8), file: "old.json") == file)
        file.httpResponses = ["200": 41, "429": 2, "transport": 1]
        let text = try file.jsonText()
        #expect(try ShardFile.decode(json: Data(text.utf8), file: "http.json") == file)
        for bad in ["\"429\" : -2", "\"429\" : 2, \"ok\" : 3", "\"429\" : 2, \"99\" : 3"] {
            let edited = text.replacingOccurrences(of: "\"429\" : 2", with: bad)
            #expect(edited != text)
            if let error = refusal(edited) {
                #expect(error.message.contains("'httpResponses."), "\(bad): \(error.message)")
            }
        }
    }

    /// Issue 12: a shard file is read as strictly as a scenario file (StrictJSON): a key this
    /// build does not know, at any depth, a key given twice, and a null where the format has
    /// none are refused naming their path (exit 65 in `pagebench merge`), never dropped.
    @Test(arguments: [
        (#""interrupted" : false"#, #""interrupted" : false, "interupted" : true"#, #"unknown key "interupted""#),
        (
            #""pages" : 1,"#, #""pages" : 1, "pagez" : 1,"#,
            #"unknown key "phases[0].metrics.counts.pagez"; known keys of phases[0].metrics.counts"#
        ),
        (
            #""throttled" : 0"#, #""throttled" : 0, "throttledd" : 0"#,
            #"unknown key "phases[0].metrics.errors.throttledd""#
        ),
        (
            #""drainLatency" : "#, #""drainLatencyCorected" : "hdr1", "drainLatency" : "#,
            #""phases[0].metrics.drainLatencyCorected""#
        ),
        (#""index" : 0"#, #""index" : 0, "segment" : 0"#, #"unknown key "shard.segment""#),
        (#""pagers" : 8"#, #""pagers" : 8, "pagers" : 2"#, "key 'phases[0].pagers' appears twice"),
        (#""interrupted" : false"#, #""interrupted" : null"#, "'interrupted' is null"),
        (#""configHash" : "#, #""configHash" : null, "configHash_" : "#, "'phases[0].configHash' is null"),
    ])
    func shardFilesAreReadStrictly(original: String, edited: String, expected: String) throws {
        let text = try inputs(count: 1)[0].file.jsonText()
        #expect(text.contains(original), "the shard text has no \(original)")
        guard let error = refusal(text.replacingOccurrences(of: original, with: edited)) else { return }
        #expect(error.kind == .invalidShard)
        #expect(error.message.contains(expected), "\(error.message)")
    }

    /// The nulls the format has (docs/scaling-out.md) still read: no start time, an
    /// in-process run's HTTP responses, a duration-bound phase's drains; a histogram of
    /// nothing measured is absent.
    @Test func theFormatsOwnNullsRead() throws {
        let file = inputs(count: 1)[0].file
        let text = try file.jsonText()
        #expect(!text.contains("cancellationLatency"))
        for null in [#""startAt" : null"#, #""httpResponses" : null"#, #""drains" : null"#] {
            #expect(text.contains(null), "\(null)")
        }
        #expect(try ShardFile.decode(json: Data(text.utf8), file: "nulls.json") == file)
    }

    /// Issue 12: a shard that cannot be written where asked (after the precheck passed) is
    /// saved to a rescue file the error names, from which it reads back whole.
    @Test func aShardThatCannotBeWrittenIsRescued() throws {
        let file = inputs(count: 1)[0].file
        // /proc/self exists but no file can be created in it: the write fails at its last step.
        do {
            try file.write(to: "/proc/self/" + ShardFile.fileName(for: file.shard))
            Issue.record("wrote a file in /proc/self")
        } catch {
            #expect(error.kind == .outputFailed)
            guard let range = error.message.range(of: "was saved to ") else {
                Issue.record("no rescue file named: \(error.message)")
                return
            }
            let rescue = String(error.message[range.upperBound...].prefix { $0 != ";" })
            defer { try? FileManager.default.removeItem(atPath: rescue) }
            #expect(rescue.hasSuffix("-shard-0-of-1.json"), "\(rescue)")
            #expect(try ShardFile.read(path: rescue) == file)
        }
    }

    /// Issue 12: counts large enough to overflow when shards are added are refused on reading,
    /// not trapped on merging.
    @Test func countsThatWouldOverflowTheMergeAreRefused() throws {
        let text = try inputs(count: 1)[0].file.jsonText()
        let pages = try #require(text.range(of: #""pages" : \d+"#, options: .regularExpression))
        let edited = text.replacingCharacters(in: pages, with: "\"pages\" : \(Int64.max)")
        let error = try #require(refusal(edited))
        #expect(error.message.contains("pages' must be between 0 and \(1 << 50)"), "\(error.message)")
        #expect(error.message.contains("'phases[0].metrics."), "\(error.message)")
    }

    @Test func corruptedHistogramAndRowAreNamed() throws {
        let file = inputs(count: 1)[0].file
        let text = try file.jsonText()
        let badHistogram = text.replacingOccurrences(
            of: "\"pageLatency\" : \"hdr1 digits=3",
            with: "\"pageLatency\" : \"hdr1 digits=2"
        )
        #expect(badHistogram != text)
        if let error = refusal(badHistogram) {
            #expect(
                error.message.contains("'phases[0].metrics.pageLatency' is not a latency histogram"),
                "\(error.message)"
            )
            #expect(error.message.contains("digits=2"), "\(error.message)")
        }
        let badRow = text.replacingOccurrences(of: "hand,0123456789abcdef", with: "other,0123456789abcdef")
        #expect(badRow != text)
        if let error = refusal(badRow) {
            #expect(error.message.contains("was the file edited?"), "\(error.message)")
        }
    }

    /// Issue 39: every field of ``TaskMetrics`` survives a shard file, so a counter added to it
    /// cannot read 0 under `--workers`. The metrics below set every field (checked by reflection,
    /// so a new field left at its default fails here first, asking to be set).
    @Test func everyFieldOfTaskMetricsRoundTripsThroughAShardFile() throws {
        var metrics = TaskMetrics()
        metrics.recordPage(
            itemCount: 0,
            scannedCount: 3,
            scannedBytes: 40,
            hasNextToken: true,
            latencyNanoseconds: 1_000
        )
        metrics.recordPage(
            itemCount: 0,
            scannedCount: 1,
            scannedBytes: 10,
            hasNextToken: false,
            latencyNanoseconds: 2_000
        )
        metrics.recordPage(
            itemCount: 2,
            scannedCount: 2,
            scannedBytes: 20,
            hasNextToken: false,
            latencyNanoseconds: 3_000
        )
        metrics.recordDrain(pageCount: 3, latencyNanoseconds: 6_000, correctedLatencyNanoseconds: 7_000)
        metrics.recordCancellation(latencyNanoseconds: 500, pagesAfterCancel: 1)
        let beforeCutOff = metrics.counts
        metrics.recordPage(itemCount: 1, scannedCount: 1, scannedBytes: 5, hasNextToken: true, latencyNanoseconds: 900)
        metrics.recordCutOff(since: beforeCutOff)
        metrics.retries = 4
        metrics.throttles = 5
        metrics.missedStarts = 6
        metrics.lateStarts = 7
        for kind in PageError.Kind.allCases { metrics.recordError(kind) }
        metrics.recordError(nil)
        var consistency = ConsistencyCounts()
        consistency.record(duplicates: 1, skipped: 2)
        metrics.consistency = consistency
        metrics.watchLatency = LatencyRecorder()
        metrics.watchLatency?.record(nanoseconds: 800)
        let unset = Mirror(reflecting: TaskMetrics()).children
        for (field, value) in zip(Mirror(reflecting: metrics).children, unset) {
            #expect("\(field.value)" != "\(value.value)", "set TaskMetrics.\(field.label ?? "?") in this test")
        }
        var file = inputs(count: 1)[0].file
        file.phases[0].metrics = metrics
        let read = try ShardFile.decode(json: Data(try file.jsonText().utf8), file: "all.json")
        #expect(read.phases[0].metrics == metrics)
    }

    @Test func readingMissingPathsAndEmptyDirectories() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-merge-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            _ = try ShardMerge.read(paths: [directory])
            Issue.record("read an empty directory")
        } catch {
            #expect(error.kind == .inputUnavailable)
            #expect(error.message.contains("no shard-*.json"))
        }
        do {
            _ = try ShardMerge.read(paths: [directory + "/nope.json"])
            Issue.record("read a missing file")
        } catch {
            #expect(error.kind == .inputUnavailable)
        }
        for input in inputs() { try input.file.write(to: directory + "/" + input.path) }
        let read = try ShardMerge.read(paths: [directory])
        #expect(read.map(\.file) == inputs().map(\.file))
    }
}

/// Seeded latencies spread over 100 ns … 100 ms (test data, same on every machine).
struct SeededSamples {
    var random: SplitMix64
    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { random.next() }

    mutating func latency() -> UInt64 {
        var value: UInt64 = 100
        for _ in 0..<Int(next() % 7) { value *= 10 }
        return value + next() % value
    }
}
