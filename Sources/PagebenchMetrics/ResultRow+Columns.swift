/// The results CSV schema: one entry per column, in header order.
///
/// This list is the single source of truth: the CSV header (golden-tested), the docs/csv-columns.md table
/// (``ColumnDescriptor/markdownTable(_:)``, drift-tested) and the checker's rules (kind and
/// polarity) all come from it.
extension ResultRow {
    public static let csvColumns: [CSVColumn<ResultRow>] = {
        typealias C = CSVColumn<ResultRow>
        var columns: [C] = [
            // Context
            .integer(
                "schema_version",
                \.schemaVersion,
                .neutral,
                .context,
                "Version of this column layout; bumped on any change."
            ),
            .text("timestamp_utc", \.timestampUTC, .context, "Start of the measured phase, UTC, ISO 8601."),
            .text("pagebench_version", \.pagebenchVersion, .context, "pagebench version that produced the row."),
            .text(
                "git_commit",
                \.gitCommit,
                .context,
                "`git rev-parse HEAD` (with `-dirty` if the tree had changes), or `unknown`."
            ),
            .text(
                "swift_version",
                \.swiftVersion,
                .context,
                "Swift compiler version pagebench was built with (compile-time)."
            ),
            .text(
                "build_configuration",
                \.buildConfiguration,
                .context,
                "`debug` or `release`; never compare across them."
            ),
            .text("host", \.host, .context, "Host name."),
            .integer("cores", \.cores, .neutral, .context, "CPU cores available to the process."),
            .text("scenario", \.scenario, .context, "Scenario name (file name without `.json`)."),
            .text("config_hash", \.configHash, .context, "Stable hash of the full store + workload configuration."),
            .unsigned("seed", \.seed, .neutral, .context, "Seed of the dataset and of every random choice of the run."),
            .text(
                "pager_kind",
                \.pagerKind,
                .context,
                "Pager that drove the drains (`loop`, `streaming`, `apollo-loadAll`, `apollo-loadNext`, `apollo-watch`)."
            ),
            .text("load_model", \.loadModel, .context, "`closed`, `open-fixed` or `open-poisson`."),
            .decimal(
                "target_drains_per_s",
                \.plannedDrainsPerSecond,
                unit: "drains/s",
                .neutral,
                .context,
                "Open loop: intended drain starts per second; empty in closed loop."
            ),
            .integer(
                "concurrency",
                \.concurrency,
                unit: "pagers",
                .neutral,
                .context,
                "Concurrent pagers (closed loop) or maximum drains in flight (open loop)."
            ),
            .integer(
                "repetition",
                \.repetition,
                .neutral,
                .context,
                "1-based repetition of this scenario and concurrency."
            ),
            .integer(
                "limit",
                \.limit,
                unit: "items",
                .neutral,
                .context,
                "`limit` of each page request; empty for a target whose requests do not send it (no `${limit}` in its templates)."
            ),
            .integer(
                "target_drains",
                \.plannedDrains,
                unit: "drains",
                .neutral,
                .context,
                "Drain count bounding the run; empty when bounded by duration."
            ),
            .decimal(
                "target_duration_s",
                \.targetDurationSeconds,
                unit: "s",
                .neutral,
                .context,
                "Duration bounding the run; empty when bounded by drain count."
            ),
            .decimal(
                "warmup_s",
                \.warmupSeconds,
                unit: "s",
                .neutral,
                .context,
                "Warm-up before the measured phase, excluded from every figure."
            ),
            // Throughput
            .decimal(
                "pages_per_s",
                \.pagesPerSecond,
                unit: "pages/s",
                .higherIsBetter,
                .measured,
                "Pages completed per second of the measured phase (those of cut-off drains included: every request the API answered); a stage row counts the pages completed while the stage ran, whichever stage their drain started in (H7)."
            ),
            .decimal(
                "items_per_s",
                \.itemsPerSecond,
                unit: "items/s",
                .higherIsBetter,
                .measured,
                "Items returned per second, by those pages."
            ),
            .decimal(
                "scanned_bytes_per_s",
                \.scannedBytesPerSecond,
                unit: "bytes/s",
                .higherIsBetter,
                .measured,
                "Bytes evaluated per second, by those pages; empty for a real target (`target_kind` http, graphql, dynamodb), which does not report them."
            ),
            .decimal(
                "drains_per_s",
                \.drainsPerSecond,
                unit: "drains/s",
                .higherIsBetter,
                .measured,
                "Drains ended per second, as `drains` counts them; a stage row counts those that ended while the stage ran (H7)."
            ),
            // Deterministic counts
            .integer(
                "drains",
                \.drains,
                unit: "drains",
                .neutral,
                .deterministic,
                "Drains that ended (drained, stopped after K pages, or abandoned); not those cut off at the end of a time-bound phase (`cut_off_drains`)."
            ),
            .integer(
                "pages",
                \.pages,
                unit: "pages",
                .lowerIsBetter,
                .deterministic,
                "Pages fetched by the drains that ended (`drains`) and the failed ones; pages of drains cut off at the end of a time-bound phase are in `cut_off_pages`, so that every count per drain is exact."
            ),
            .integer("items", \.items, unit: "items", .neutral, .deterministic, "Items returned."),
            .integer(
                "scanned_items",
                \.scannedItems,
                unit: "items",
                .lowerIsBetter,
                .deterministic,
                "Items evaluated, returned or filtered out (S2), by the pages of ended drains; a real target's own count (`scannedCount`, DynamoDB's `ScannedCount`), empty for a target that names none."
            ),
            .integer(
                "scanned_bytes",
                \.scannedBytes,
                unit: "bytes",
                .lowerIsBetter,
                .deterministic,
                "Bytes evaluated and charged to the scan budget (S3), by the pages of ended drains; empty for a real target, which does not report them (see `response_bytes`)."
            ),
            .integer(
                "empty_pages_wasted",
                \.emptyPagesWasted,
                unit: "pages",
                .lowerIsBetter,
                .deterministic,
                "Pages with zero items and a token: wasted round trips (H1)."
            ),
            .integer(
                "empty_pages_final",
                \.emptyPagesFinal,
                unit: "pages",
                .lowerIsBetter,
                .deterministic,
                "Pages with zero items and no token: the exact-end page (S6) or an empty last page."
            ),
            .decimal(
                "empty_page_rate",
                \.emptyPageRate,
                unit: "ratio",
                .lowerIsBetter,
                .deterministic,
                "`empty_pages_wasted / pages` (H1)."
            ),
            .decimal(
                "pages_per_drain_mean",
                \.pagesPerDrainMean,
                unit: "pages",
                .lowerIsBetter,
                .deterministic,
                "Mean pages per drain."
            ),
            .integer(
                "pages_per_drain_max",
                \.pagesPerDrainMax,
                unit: "pages",
                .lowerIsBetter,
                .deterministic,
                "Most pages in one drain."
            ),
        ]
        // Latency
        columns += C.latency("page_latency", \.pageLatency, "Page request latency; empty when per-page timing was off")
        columns += C.latency("drain_latency", \.drainLatency, "Drain latency from its actual start (uncorrected)")
        columns += C.latency(
            "drain_latency_corrected",
            \.drainLatencyCorrected,
            "Open loop: drain latency from its intended start (coordinated-omission corrected); empty in closed loop"
        )
        columns += [
            .integer(
                "missed_starts",
                \.missedStarts,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Open loop: drains whose intended start found every slot busy (H8: the pager that took the drain was still in its previous one, and every other pager had begun one); a drain that had a free slot but began late is a `late_starts`; empty in closed loop. Schema 4 and earlier counted every drain that began after its intended instant."
            ),
            // Cancellation
            .integer(
                "cancellations",
                \.cancellations,
                unit: "drains",
                .neutral,
                .measured,
                "Drains cancelled by the probe or the final cancel-everything."
            ),
        ]
        columns += C.latency(
            "cancel_latency",
            \.cancellationLatency,
            "From cancel request to the pager's task having returned (H2); empty when nothing was cancelled"
        )
        columns += [
            .integer(
                "pages_after_cancel",
                \.pagesAfterCancel,
                unit: "pages",
                .lowerIsBetter,
                .measured,
                "Pages fetched after a cancel was requested: wasted work (H2)."
            ),
            // Retries and errors
            .integer("retries", \.retries, unit: "requests", .lowerIsBetter, .measured, "Page requests retried."),
            .integer(
                "throttles",
                \.throttles,
                unit: "responses",
                .lowerIsBetter,
                .measured,
                "Throttling responses received (S21)."
            ),
            .integer(
                "errors_throttled",
                \.errors.throttled,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Drains failed: throttled past the retry policy (S21)."
            ),
            .integer(
                "errors_fault",
                \.errors.fault,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Drains failed: injected store fault (S21)."
            ),
            .integer(
                "errors_invalid_token",
                \.errors.invalidToken,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Drains failed: invalid token (S17)."
            ),
            .integer(
                "errors_token_mismatch",
                \.errors.tokenMismatch,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Drains failed: token bound to another request (S18)."
            ),
            .integer(
                "errors_validation",
                \.errors.validation,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Drains failed: request rejected by validation (S1, S15)."
            ),
            .integer(
                "errors_other",
                \.errors.other,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Drains failed for any other reason."
            ),
            // Real targets (issue 14): empty or zero for in-process rows
            .text(
                "target_kind",
                \.targetKind,
                .context,
                optional: true,
                "What the run paged: empty in-process, `serve` (`--target URL`), `http`, `graphql` or `dynamodb` (`--target-file`)."
            ),
            .text(
                "target_hash",
                \.targetHash,
                .context,
                optional: true,
                "SHA-256 prefix of the target file without header values; empty without one."
            ),
            .text(
                "http_responses",
                \.httpResponses,
                .context,
                optional: true,
                "Responses by HTTP status in the measured phase, `200=1234 429=5 transport=0`; empty in-process."
            ),
            .integer(
                "target_errors_transport",
                \.targetErrors.transport,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Of errors_other: no response (refused, broken, timeout, TLS) (T2)."
            ),
            .integer(
                "target_errors_unauthorized",
                \.targetErrors.unauthorized,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Of errors_other: HTTP 401 or 403 (T2)."
            ),
            .integer(
                "target_errors_http_status",
                \.targetErrors.httpStatus,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Of errors_other: another non-retryable HTTP status (T2)."
            ),
            .integer(
                "target_errors_not_json",
                \.targetErrors.notJSON,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Of errors_other: a body that is not JSON (T2)."
            ),
            .integer(
                "target_errors_missing_items",
                \.targetErrors.missingItems,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Of errors_other: no items array at the items pointer (T2)."
            ),
            .integer(
                "target_errors_bad_continuation",
                \.targetErrors.badContinuation,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Of errors_other: a continuation of the wrong type (T2)."
            ),
            .integer(
                "target_errors_graphql",
                \.targetErrors.graphQLError,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Of errors_other: a GraphQL `errors` entry, even with HTTP 200 (T2)."
            ),
            .integer(
                "target_errors_api",
                \.targetErrors.apiError,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Of errors_other: the API's own error (a DynamoDB `__type`) (T2)."
            ),
            .integer(
                "target_errors_repeated_continuation",
                \.targetErrors.repeatedContinuation,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Of errors_other: the continuation sent came back (P9)."
            ),
            .decimal(
                "consumed_capacity_units",
                \.consumedCapacityUnits,
                unit: "capacity units",
                .lowerIsBetter,
                .measured,
                "DynamoDB `ConsumedCapacity.CapacityUnits` summed over the measured phase (W4); empty when not reported."
            ),
            // Resources
            .decimal(
                "cpu_user_s",
                \.cpuUserSeconds,
                unit: "s",
                .lowerIsBetter,
                .measured,
                "User CPU time of the process during the measured phase (all threads)."
            ),
            .decimal(
                "cpu_system_s",
                \.cpuSystemSeconds,
                unit: "s",
                .lowerIsBetter,
                .measured,
                "System CPU time of the process during the measured phase."
            ),
            .unsigned(
                "allocations",
                \.allocations,
                unit: "allocations",
                .lowerIsBetter,
                .measured,
                "jemalloc allocation requests during the measured phase (whole process), counted as `allocation_counting` says."
            ),
            .decimal(
                "allocations_per_page",
                \.allocationsPerPage,
                unit: "allocations/page",
                .lowerIsBetter,
                .measured,
                "`allocations / pages`; exact only when `allocation_counting` is `exact`."
            ),
            .text(
                "allocation_counting",
                \.allocationCounting,
                .context,
                optional: true,
                "How `allocations` was counted. `exact` (`run --exact-allocations`: jemalloc's thread caches off, so every allocation request of the process during the measured phase — the pagers', the store's and the harness's own, including a fixed part per phase of about 17,000 on the default scenario, so per-page figures compare between phases of one size — is counted as it is made; repeatable to about 1 %, slower to run; results/allocation-exact.md). `cached` (the default: requests a thread's cache serves are counted when the cache is flushed or refilled, in bursts, so one repetition can read several allocations per page more than another; results/allocation-count-noise.md). Empty in files of schema 3 and earlier (counted as `cached`)."
            ),
            .integer(
                "peak_allocated_bytes",
                \.peakAllocatedBytes,
                unit: "bytes",
                .lowerIsBetter,
                .measured,
                "Highest jemalloc `stats.allocated` sampled during the measured phase."
            ),
            .integer(
                "peak_rss_bytes",
                \.peakRSSBytes,
                unit: "bytes",
                .lowerIsBetter,
                .measured,
                "Peak resident set size of the process (`VmHWM`)."
            ),
            .decimal(
                "measurement_overhead_ratio",
                \.measurementOverheadRatio,
                unit: "ratio",
                .lowerIsBetter,
                .measured,
                "pages/s with per-page timing off ÷ with it on; empty when not measured."
            ),
            .decimal(
                "harness_overhead_ratio",
                \.harnessOverheadRatio,
                unit: "ratio",
                .lowerIsBetter,
                .measured,
                "Bare store loop pages/s (50 ms over the same store and drain plans just before the phase) ÷ `pages_per_s`: what the harness and pager cost (1 = nothing). Only where the bare loop is the phase's floor: in-process, closed loop, a store with no service time, injected failures or writes; empty elsewhere (H7: a target, `serviceTime`, `throttleRate`/`faultRate`, writes, open loop, stages, shards). Schema 4 and earlier also filled it on stores with service time or failures and in open loop, where it compared the bare loop with those."
            ),
            .decimal(
                "duration_s",
                \.durationSeconds,
                unit: "s",
                .neutral,
                .measured,
                "Wall-clock length of the measured phase."
            ),
            .integer(
                "partial",
                \.partial,
                unit: "0/1",
                .neutral,
                .deterministic,
                "1 when SIGINT or SIGTERM ended the phase before its bound (H6): its figures cover only the time it ran; else 0."
            ),
            .integer(
                "slo_held",
                \.sloHeld,
                unit: "0/1",
                .neutral,
                .context,
                "1 when every SLO (`--slo` and the scenario's `slo` list) held on this row, 0 when one broke; empty without SLOs. A `knee` step always has it (except one cut short by a signal): its verdict, 0 also when it started less than `--min-achieved` of the drains it offered ((`drains` + `cancellations`) ÷ (`target_drains_per_s` × `target_duration_s`))."
            ),
            // Stages (H4): empty unless the workload has stages
            .integer(
                "stage",
                \.stage,
                .neutral,
                .context,
                "Stage of a staged run (H4), 1-based: each stage is its own row and its own identity; empty without stages."
            ),
            .decimal(
                "stage_start_s",
                \.stageStartSeconds,
                unit: "s",
                .neutral,
                .context,
                "When the stage began, seconds after the stage plan started; empty without stages."
            ),
            .integer(
                "stage_pagers_from",
                \.stagePagersFrom,
                unit: "pagers",
                .neutral,
                .context,
                "Pager stages: pagers at the stage's start (ramped linearly to `stage_pagers_to`); empty otherwise."
            ),
            .integer(
                "stage_pagers_to",
                \.stagePagersTo,
                unit: "pagers",
                .neutral,
                .context,
                "Pager stages: pagers at the stage's end; empty otherwise."
            ),
            .decimal(
                "stage_rate_from",
                \.stageRateFrom,
                unit: "drains/s",
                .neutral,
                .context,
                "Rate stages: arrival rate at the stage's start (ramped linearly to `stage_rate_to`); `target_drains_per_s` is the stage's mean; empty otherwise."
            ),
            .decimal(
                "stage_rate_to",
                \.stageRateTo,
                unit: "drains/s",
                .neutral,
                .context,
                "Rate stages: arrival rate at the stage's end; empty otherwise."
            ),
            // Writes during pagination (S25) and watching (P16): empty without them
            .integer(
                "duplicate_items",
                \.duplicateItems,
                unit: "items",
                .lowerIsBetter,
                .deterministic,
                "Under writes: items a drain returned again, over the drains that reached their last page (S25); deterministic with per-request writes at concurrency 1; empty without writes."
            ),
            .integer(
                "skipped_items",
                \.skippedItems,
                unit: "items",
                .lowerIsBetter,
                .deterministic,
                "Under writes: items that existed and matched from a drain's first request to its last and were never returned (S25); empty without writes."
            ),
            .integer(
                "inconsistent_drains",
                \.inconsistentDrains,
                unit: "drains",
                .lowerIsBetter,
                .deterministic,
                "Under writes: drains with a duplicate or a skip (S25); empty without writes."
            ),
            .integer(
                "watch_refreshes",
                \.watchRefreshes,
                unit: "outputs",
                .neutral,
                .measured,
                "Watching pagers: outputs published because a write touched a loaded page (P16); empty without watching."
            ),
        ]
        columns += C.latency(
            "watch_latency",
            \.watchLatency,
            "Watching pagers: write committed → new output published (P16); empty without watching"
        )
        columns += [
            .integer(
                "late_starts",
                \.lateStarts,
                unit: "drains",
                .lowerIsBetter,
                .measured,
                "Open loop: drains that had a free slot at their intended start but began more than 1 ms after it (H8): the load generator was late (a timer woke late, its thread was busy), not the target; not counted in `missed_starts`; empty in closed loop and in files of schema 4 and earlier."
            ),
            // Instructions (H10): what another process on the machine cannot move
            .decimal(
                "instructions_per_page",
                \.instructionsPerPage,
                unit: "instructions/page",
                .lowerIsBetter,
                .measured,
                "`run --count-instructions`: instructions the whole pagebench process executed per page when the phase's workload ran once more, one repetition, under valgrind's callgrind (counted from the measured phase's start to its end, warm-up excluded; docs/gate.md); gated by `check` (H10). On the first repetition's row, empty on the others and without the flag."
            ),
            // Workload parameters (issue 26): what sets a configuration apart, readable
            .text(
                "label",
                \.label,
                .context,
                optional: true,
                "What a person calls this configuration: the scenario's `label`, else the workload parameters that set it apart from the other configurations of its run (`limit=100 filter=category=0 read=scan`), else the scenario's name. `config_hash` stays the identity. Empty in files of schema 5 and earlier (readers derive one from the other columns)."
            ),
            .text(
                "filter",
                \.filter,
                .context,
                optional: true,
                "Filter of every page request as `--filter` writes it (`match`, `category=0`, `size>=4096`), or `none`; empty in files of schema 5 and earlier."
            ),
            .text(
                "read",
                \.read,
                .context,
                optional: true,
                "What each drain read as `--read` writes it (`partition:uniform`, `partition:zipf:1.1`, `scan`, `segment:4`); empty in files of schema 5 and earlier."
            ),
            .text(
                "continuation",
                \.continuation,
                .context,
                optional: true,
                "The store's continuation mode: `keyset` (after the last evaluated key) or `offset` (at the n-th item; S25 under writes); empty in files of schema 5 and earlier."
            ),
            .text(
                "slos",
                \.slos,
                .context,
                optional: true,
                "The SLOs `slo_held` judged this row on, `;`-separated as written (`drain_latency_corrected_p99_ns<60ms;error_rate<1%`), so that `report` draws their bounds; empty without SLOs and in files of schema 5 and earlier."
            ),
            // The whole histogram (issue 36): what `export --format hgrm` writes
            .text(
                "page_latency_histogram",
                \.pageLatencyHistogram,
                .measured,
                optional: true,
                "The page latency histogram of the measured phase, losslessly: `hdr1 digits=3 highest=… clamped=… total=… min=… max=…` then `value:count` per non-empty bucket (value: the bucket's lowest ns; HdrHistogram at 3 significant digits), from which every `page_latency_*` percentile reads back exactly; what `pagebench export --format hgrm` writes as a percentile distribution. Empty when per-page timing was off or nothing was recorded, and in files of schema 6 and earlier."
            ),
            // What a time-bound phase cut off, and what a real target sent back (issue 35)
            .integer(
                "cut_off_drains",
                \.cutOffDrains,
                unit: "drains",
                .neutral,
                .measured,
                "Drains still running when a time-bound phase (`--duration`, a knee step, a stage that ramped pagers down) was up: cancelled (also in `cancellations`, whose latency they measure, H2) and not in `drains`, `pages` or any figure per drain; 0 in a drain-bound phase."
            ),
            .integer(
                "cut_off_pages",
                \.cutOffPages,
                unit: "pages",
                .neutral,
                .measured,
                "Pages of the `cut_off_drains`: requests the API answered that are not in `pages`."
            ),
            .integer(
                "response_bytes",
                \.responseBytes,
                unit: "bytes",
                .neutral,
                .deterministic,
                "A real target (`target_kind` http, graphql, dynamodb): bytes of the page responses' bodies of the ended drains (what `scanned_bytes` cannot say for an API); empty in-process and for `serve`."
            ),
            .integer(
                "warmup_requests",
                \.warmupRequests,
                unit: "requests",
                .neutral,
                .measured,
                "A remote source (`target_kind` set): requests sent during the warm-up before this phase, in no row's counts (`pagebench run` names them apart from the rows'); empty in-process and without a warm-up."
            ),
            .decimal(
                "started_drains_per_s",
                \.startedDrainsPerSecond,
                unit: "drains/s",
                .higherIsBetter,
                .measured,
                "Open loop: drains started per second of the planned length (`target_duration_s`, else `duration_s`): ended, failed, cancelled or cut off; the achieved rate `knee` judges against `target_drains_per_s` and `report` shows beside `drains_per_s` (drains completed per second); empty in closed loop."
            ),
            // The fast end of page latency (issue 35): what another process's load hardly moves
            .unsigned(
                "page_latency_min_ns",
                \.pageLatencyMinNanoseconds,
                unit: "ns",
                .lowerIsBetter,
                .measured,
                "Page request latency: minimum, the fastest page (HdrHistogram, 3 significant digits): a remote target's service time plus the bare round trip, which CPU contention on the client's machine hardly moves (docs/gate.md); empty when per-page timing was off and in files of schema 8 and earlier."
            ),
            .unsigned(
                "page_latency_p10_ns",
                \.pageLatencyP10Nanoseconds,
                unit: "ns",
                .lowerIsBetter,
                .measured,
                "Page request latency: 10th percentile (docs/gate.md); empty when per-page timing was off and in files of schema 8 and earlier."
            ),
            // The whole drain latency histogram (issue 36): `export --format hgrm` writes it too
            .text(
                "drain_latency_histogram",
                \.drainLatencyHistogram,
                .measured,
                optional: true,
                "The drain latency histogram of the measured phase (its drains that ended, from each one's actual start), losslessly, in the form of `page_latency_histogram`, from which every `drain_latency_*` percentile reads back exactly; what `pagebench export --format hgrm` writes as the row's drain latency distribution. Empty when no drain ended, and in files of schema 9 and earlier."
            ),
        ]
        return columns
    }()
}
