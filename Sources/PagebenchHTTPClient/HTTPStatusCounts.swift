import Synchronization

/// How many responses of each HTTP status a source received, plus requests that got no
/// response at all (connection refused or broken, timeout). A snapshot; higher counts of
/// anything but 200 are worse.
package struct HTTPStatusCounts: Sendable, Hashable, CustomStringConvertible {
    /// Responses per status code.
    package var byStatus: [Int: Int]
    /// Requests that failed without a response.
    package var transportFailures: Int

    package init(byStatus: [Int: Int] = [:], transportFailures: Int = 0) {
        self.byStatus = byStatus
        self.transportFailures = transportFailures
    }

    /// Responses of `status` (0 when none).
    package subscript(status: Int) -> Int { byStatus[status] ?? 0 }

    /// All responses.
    package var responses: Int { byStatus.values.reduce(0, +) }

    /// Adds another count (per-task counts merged at the end).
    package mutating func add(_ other: HTTPStatusCounts) {
        byStatus.merge(other.byStatus, uniquingKeysWith: +)
        transportFailures += other.transportFailures
    }

    /// These counts less `other` (a part of them); statuses that reach zero are left out.
    package func subtracting(_ other: HTTPStatusCounts) -> HTTPStatusCounts {
        var result = self
        for (status, count) in other.byStatus {
            let left = (result.byStatus[status] ?? 0) - count
            result.byStatus[status] = left == 0 ? nil : left
        }
        result.transportFailures -= other.transportFailures
        return result
    }

    /// `200=1234 429=5 transport=0`, statuses ascending.
    /// The counts keyed as in a shard file: `"200"`, `"429"`, … and `"transport"`.
    package var keyedCounts: [String: Int] {
        var keyed = Dictionary(uniqueKeysWithValues: byStatus.map { (String($0.key), $0.value) })
        keyed["transport"] = transportFailures
        return keyed
    }

    /// The counts of ``keyedCounts``; keys that are neither a status nor `transport` are ignored.
    package init(keyedCounts: [String: Int]) {
        self.init()
        for (key, count) in keyedCounts {
            if key == "transport" {
                transportFailures += count
            } else if let status = Int(key) {
                byStatus[status, default: 0] += count
            }
        }
    }

    package var description: String {
        let statuses = byStatus.keys.sorted().map { "\($0)=\(byStatus[$0]!)" }
        return (statuses + ["transport=\(transportFailures)"]).joined(separator: " ")
    }
}

/// The live counters behind ``HTTPStoreSource/statusCounts``: lock-free for the statuses
/// a store server sends, a lock only for anything else.
final class HTTPStatusCounter: Sendable {
    private let ok = Atomic<Int>(0)
    private let badRequest = Atomic<Int>(0)
    private let notFound = Atomic<Int>(0)
    private let conflict = Atomic<Int>(0)
    private let tooManyRequests = Atomic<Int>(0)
    private let internalError = Atomic<Int>(0)
    private let unavailable = Atomic<Int>(0)
    private let transport = Atomic<Int>(0)
    private let others = Mutex<[Int: Int]>([:])

    func record(status: Int) {
        switch status {
        case 200: ok.add(1, ordering: .relaxed)
        case 400: badRequest.add(1, ordering: .relaxed)
        case 404: notFound.add(1, ordering: .relaxed)
        case 409: conflict.add(1, ordering: .relaxed)
        case 429: tooManyRequests.add(1, ordering: .relaxed)
        case 500: internalError.add(1, ordering: .relaxed)
        case 503: unavailable.add(1, ordering: .relaxed)
        default: others.withLock { $0[status, default: 0] += 1 }
        }
    }

    func recordTransportFailure() {
        transport.add(1, ordering: .relaxed)
    }

    var snapshot: HTTPStatusCounts {
        var byStatus = others.withLock { $0 }
        let fixed: [(Int, Int)] = [
            (200, ok.load(ordering: .relaxed)), (400, badRequest.load(ordering: .relaxed)),
            (404, notFound.load(ordering: .relaxed)), (409, conflict.load(ordering: .relaxed)),
            (429, tooManyRequests.load(ordering: .relaxed)), (500, internalError.load(ordering: .relaxed)),
            (503, unavailable.load(ordering: .relaxed)),
        ]
        for (status, count) in fixed where count > 0 { byStatus[status] = count }
        return HTTPStatusCounts(byStatus: byStatus, transportFailures: transport.load(ordering: .relaxed))
    }
}
