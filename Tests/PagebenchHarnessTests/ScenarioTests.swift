import Foundation
import PagebenchHarness
import PagebenchStore
import Testing

/// The package root, found from this file's path (tests run from any directory).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

@Suite struct ScenarioTests {
    @Test func builtInDefaultMatchesTheShippedDefaultFile() throws {
        let file = try Scenario.load(path: packageRoot + "/Benchmarks/Scenarios/default.json")
        #expect(file == Scenario.default)
        #expect(file.configurationHash == Scenario.default.configurationHash)
    }

    @Test func everyShippedScenarioLoadsAndValidates() throws {
        let directories = ["", "/ci", "/goals", "/writes"].map { packageRoot + "/Benchmarks/Scenarios" + $0 }
        let files = try Scenario.files(expanding: directories)
        #expect(files.count >= 12)
        var names = Set<String>()
        for file in files {
            let scenario = try Scenario.load(path: file)
            #expect(!scenario.description.isEmpty, "\(file) has no description")
            names.insert(scenario.name)
        }
        #expect(names.count == files.count, "scenario names must be unique")
        for required in [
            "default", "empty-pages", "large-items", "skewed-partitions", "slow-store", "throttling", "parallel-scan",
        ] {
            #expect(names.contains(required))
        }
    }

    @Test func jsonRoundTripKeepsEveryField() throws {
        var scenario = Scenario(name: "round-trip")
        scenario.store.partitions = 7
        scenario.store.serviceTime.base = .fixed(nanoseconds: 3_000_000)
        scenario.workload.pager = .apolloLoadNext
        scenario.workload.concurrency = [2, 5]
        scenario.workload.read = .partition(.zipf(exponent: 1.25))
        scenario.workload.limit = 33
        scenario.workload.filter = .sizeAtLeast(100)
        scenario.workload.reverse = true
        scenario.workload.drain = .abandon(probability: 0.25)
        scenario.workload.load = .open(drainsPerSecond: 150, poisson: true)
        scenario.workload.bound = .duration(seconds: 1.5)
        scenario.workload.cancelFraction = 0.3
        scenario.workload.cancelAtEnd = false
        scenario.workload.retry.maxRetries = 5
        scenario.workload.retry.initialBackoffNanoseconds = 250_000
        scenario.workload.seed = 99
        let text = try scenario.jsonText()
        let loaded = try Scenario.load(json: Data(text.utf8), defaultName: "ignored")
        #expect(loaded == scenario)
    }

    @Test func missingKeysTakeDefaultsAndTheFileNameIsTheDefaultName() throws {
        let scenario = try Scenario.load(json: Data("{}".utf8), defaultName: "from-file")
        #expect(scenario.name == "from-file")
        #expect(scenario.store == .default)
        #expect(scenario.workload == Workload())
    }

    /// Each bad file names the field that is wrong.
    @Test(arguments: [
        (#"{"workload": {"limt": 5}}"#, "workload.limt"),
        (#"{"workload": {"concurrency": [1, 0]}}"#, "workload.concurrency"),
        (#"{"workload": {"concurrency": "many"}}"#, "workload.concurrency"),
        (#"{"workload": {"limit": 0}}"#, "workload.limit"),
        (#"{"workload": {"limit": "ten"}}"#, "workload.limit"),
        (#"{"store": {"partitions": 4}, "workload": {"read": "partition:9"}}"#, "workload.read"),
        (#"{"workload": {"read": "everything"}}"#, "workload.read"),
        (#"{"workload": {"drain": "first:0"}}"#, "workload.drain"),
        (#"{"workload": {"pager": "apollo-loadAll", "drain": "abandon:0.5"}}"#, "workload.drain"),
        (#"{"workload": {"pager": "pigeon"}}"#, "workload.pager"),
        (#"{"workload": {"drains": 5, "durationSeconds": 1}}"#, "workload.durationSeconds"),
        (#"{"workload": {"load": "open-poisson:0"}}"#, "workload.load"),
        (#"{"workload": {"cancelFraction": 1.5}}"#, "workload.cancelFraction"),
        (#"{"workload": {"retry": {"initialBackoff": "10 parsecs"}}}"#, "workload.retry.initialBackoff"),
        (#"{"workload": {"filter": "colour=red"}}"#, "workload.filter"),
        (#"{"store": {"partitions": 0}}"#, "store"),
        (#"{"store": {"partitons": 3}}"#, "store"),
        (#"{"stor": {}}"#, "stor"),
        (#"[1, 2]"#, "top level"),
        (#"{"workload": "#, "not valid JSON"),
        // Issue 28: read with the one tokenizer, an error deep in a list is located.
        (
            "{\n  \"workload\": {\n    \"concurrency\": [1,\n      8,\n      ]\n  }\n}",
            "not valid JSON: line 5, column 7: expected a value, found ']'"
        ),
        // Issue 12: nested unknown keys, duplicate keys, nulls, control characters, scalars,
        // repeated phases.
        (#"{"store": {"serviceTime": {"bse": "fixed:1ms"}}}"#, "serviceTime.bse"),
        (#"{"name": "a", "name": "b"}"#, "'name' appears twice"),
        (#"{"workload": {"limit": 5, "limit": 6}}"#, "'workload.limit' appears twice"),
        (#"{"store": {"partitions": null}}"#, "'store.partitions' is null"),
        (#"{"workload": {"concurrency": [1, null]}}"#, "'workload.concurrency[1]' is null"),
        ("{\"name\": \"x\\u001b[2J\"}", "control character"),
        ("{\"description\": \"tab\\there\"}", "control character"),
        (#"2.5"#, "top level must be a JSON object"),
        (#"{"workload": {"concurrency": [1, 8, 1]}}"#, "lists 1 twice"),
        // H4: what a stage plan sets is given once; a plan is pagers or rates.
        (#"{"workload": {"stages": "1s:0-4", "drains": 10}}"#, "workload.drains"),
        (#"{"workload": {"stages": "1s:0-4", "concurrency": 4}}"#, "workload.concurrency"),
        (#"{"workload": {"stages": "1s:0-4", "warmupSeconds": 1}}"#, "workload.warmupSeconds"),
        (#"{"workload": {"stages": "1s:0-4", "load": "open-fixed"}}"#, "workload.load"),
        (#"{"workload": {"stages": "1s:50/s", "load": "open-fixed:50"}}"#, "workload.load"),
        (#"{"workload": {"stages": "1s:50/s", "load": "closed"}}"#, "workload.load"),
        (#"{"workload": {"stages": "1s:50/s", "concurrency": [1, 2]}}"#, "workload.concurrency"),
        (#"{"workload": {"stages": [{"duration": "1s", "pagers": 4, "rate": 5}]}}"#, "workload.stages[0]"),
        (#"{"workload": {"stages": [{"duration": "1s"}]}}"#, "workload.stages[0]"),
        (#"{"workload": {"stages": [{"pagers": 4}]}}"#, "workload.stages[0].duration"),
        (#"{"workload": {"stages": [{"duration": "1s", "pagers": 4, "ramp": 1}]}}"#, "workload.stages[0].ramp"),
        (#"{"workload": {"stages": [{"duration": "1s", "pagers": 2.5}]}}"#, "workload.stages[0]"),
        (#"{"workload": {"stages": 5}}"#, "workload.stages"),
        (#"{"workload": {"stages": "1s:0-4", "rampDown": "abruptly"}}"#, "workload.rampDown"),
        (#"{"workload": {"rampDown": "cancel"}}"#, "workload.rampDown"),
        (#"{"workload": {"load": "open-fixed"}}"#, "needs a rate"),
        // Issue 24: a number that does not fit its field is named with its path and its type
        // (JSONDecoder said "workload: The given data was not valid JSON."), and a number no
        // reader can hold is located; a plan longer than a phase is refused, not an overflow.
        (#"{"workload": {"limit": 2.5}}"#, "workload.limit: must be a whole number, found 2.5"),
        (
            #"{"workload": {"seed": -1}}"#,
            "workload.seed: must be a whole number from 0 to 18446744073709551615, found -1"
        ),
        (
            #"{"workload": {"retry": {"maxRetries": 1e20}}}"#,
            "workload.retry.maxRetries: must be a whole number, found 1e20"
        ),
        (#"{"workload": {"warmupSeconds": 1e400}}"#, "found 1e400 at 'workload.warmupSeconds'"),
        (
            #"{"workload": {"stages": [{"duration": "1s", "pagers": 1e400}]}}"#,
            "found 1e400 at 'workload.stages[0].pagers'"
        ),
        (#"{"workload": {"stages": "50000s:1,50000s:1"}}"#, "workload.stages[1]: the stages last more than 24h"),
        (#"{"workload": {"watchSeconds": -1}}"#, "workload.watchSeconds"),
        // An open-loop rate of 1e-12 drains/s put the first arrival past a UInt64 of nanoseconds (a trap).
        (#"{"workload": {"load": "open-fixed:1e-12"}}"#, "workload.load: the open-loop rate must be from 0.001"),
        // H7: an open loop's arrival rate sets its pages/s, timed or not.
        (#"{"workload": {"load": "open-fixed:100", "measureOverhead": true}}"#, "workload.measureOverhead"),
    ])
    func badScenarioNamesTheField(json: String, field: String) {
        do {
            _ = try Scenario.load(json: Data(json.utf8), defaultName: "bad", file: "bad.json")
            Issue.record("\(json) was accepted")
        } catch {
            #expect(error.kind == .invalidScenario)
            #expect(error.description.hasPrefix("bad.json: "))
            #expect(error.description.contains(field), "\(error.description) does not name \(field)")
        }
    }

    /// H4: a plan written as a list or as text loads to the same workload, sets what it
    /// implies (length, pool, open loop), survives the scenario's JSON text, and changes the
    /// configuration hash; a workload without stages keeps its hash.
    @Test func stagesLoadAsListOrTextAndRoundTrip() throws {
        let list = try Scenario.load(
            json: Data(
                #"{"workload": {"stages": [{"duration": "30s", "pagers": 64}, {"duration": "60s", "pagers": 64}, {"duration": "30s", "from": 32, "pagers": 0}], "rampDown": "cancel"}}"#
                    .utf8
            ),
            defaultName: "staged"
        )
        let text = try Scenario.load(
            json: Data(#"{"workload": {"stages": "30s:0-64, 60s:64, 30s:32-0", "rampDown": "cancel"}}"#.utf8),
            defaultName: "staged"
        )
        #expect(list == text)
        let workload = list.workload
        #expect(workload.stages == (try StagePlan(parsing: "30s:0-64,60s:64,30s:32-0")))
        #expect(workload.concurrency == [64] && workload.bound == .duration(seconds: 120) && workload.load == .closed)
        #expect(workload.rampDown == .cancel)
        #expect(try Scenario.load(json: Data(try list.jsonText().utf8), defaultName: "x") == list)
        #expect(list.configurationHash != Scenario(name: "staged").configurationHash)
        #expect(!Scenario.default.workload.canonicalText.contains("stages"))

        let rates = try Scenario.load(
            json: Data(
                #"{"workload": {"concurrency": 16, "load": "open-poisson", "stages": [{"duration": "20s", "rate": 100}, {"duration": "10s", "rate": 2000}]}}"#
                    .utf8
            ),
            defaultName: "rates"
        )
        #expect(rates.workload.load == .open(drainsPerSecond: 0, poisson: true))
        #expect(rates.workload.concurrency == [16])
        #expect(rates.workload.stages?.description == "20s:0/s-100/s,10s:100/s-2000/s")
        #expect(try Scenario.load(json: Data(try rates.jsonText().utf8), defaultName: "x") == rates)
        // Rates without a load are fixed arrivals.
        let fixed = try Scenario.load(
            json: Data(#"{"workload": {"concurrency": 4, "stages": "5s:10/s"}}"#.utf8),
            defaultName: "f"
        )
        #expect(fixed.workload.load == .open(drainsPerSecond: 0, poisson: false))
        #expect(fixed.workload.load.description == "open-fixed")
    }

    @Test func missingFileIsInputUnavailable() {
        #expect(throws: HarnessError.self) { try Scenario.load(path: "/nonexistent/scenario.json") }
        do {
            _ = try Scenario.load(path: "/nonexistent/scenario.json")
        } catch {
            #expect(error.kind == .inputUnavailable)
        }
    }

    @Test func textFormsRoundTrip() throws {
        for text in ["partition:uniform", "partition:zipf:1.1", "partition:3", "scan", "segment:8"] {
            #expect(try ReadRange(parsing: text).description == text)
        }
        for text in ["full", "first:5", "abandon:0.2"] {
            #expect(try DrainMode(parsing: text).description == text)
        }
        for text in ["closed", "open-fixed:200.0", "open-poisson:12.5"] {
            #expect(try LoadModel(parsing: text).description == text)
        }
        for kind in PagerKind.allCases {
            #expect(try PagerKind(parsing: kind.rawValue) == kind)
        }
    }

    @Test func configurationHashIgnoresConcurrencyButNotTheWorkload() {
        var a = Scenario.default
        var b = Scenario.default
        b.workload.concurrency = [3]
        b.workload.repetitions = 4
        #expect(a.configurationHash == b.configurationHash)
        a.workload.limit = 11
        #expect(a.configurationHash != b.configurationHash)
    }
}
