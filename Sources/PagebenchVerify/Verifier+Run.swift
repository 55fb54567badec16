import Foundation
import PagebenchBase
import PagebenchPage
import PagebenchTargets
import PagebenchWire

extension Verifier {
    /// Sends what ``plan()`` announced, within the bounds, and judges V1–V7.
    ///
    /// - Parameter stopped: says why no further request may start (a signal), checked before
    ///   each; the rules then judge what was observed, the rest *could not tell*.
    /// - Throws: ``VerifyError`` (unreachable, exit 69) when the first page gets no answer or
    ///   an answer that is not a page (down, TLS, 401/403: as `run`); (invalidInput) when the
    ///   environment cannot complete the target; `CancellationError`.
    package func run(stopped: @escaping @Sendable () -> String? = { nil }) async throws -> VerifyReport {
        let start = ContinuousClock.now
        let gate = RequestGate(
            rate: options.rate,
            maxRequests: options.maxRequests,
            maxSeconds: options.maxSeconds,
            start: start,
            stopped: stopped
        )
        let source = try makeSource(connections: options.concurrency)
        do {
            let observations = try await observe(source, gate)
            await source.shutdown()
            let results = Self.judge(observations)
            return VerifyReport(
                target: target.name,
                kind: target.kind.rawValue,
                endpoint: target.endpoint,
                partitions: partitions.map(\.label),
                limits: limits,
                results: results,
                figures: Self.figures(observations.drains, limits: limits),
                requests: gate.sent,
                seconds: (ContinuousClock.now - start).totalSeconds,
                options: options,
                keyed: target.itemKey != nil,
                filter: filter.map(Self.text)
            )
        } catch {
            await source.shutdown()
            throw error
        }
    }

    /// Sends everything, in the order that keeps the cheap checks when a bound cuts the
    /// rest: the first partition at the middle limit (its first request is the reachability
    /// check; its continuations feed V4 and V5), the token and error probes, every other
    /// drain with the largest limits first, then the drains at once.
    func observe(_ source: TargetSource, _ gate: RequestGate) async throws -> Observations {
        var observations = Observations(
            keyed: target.itemKey != nil,
            concurrencyLimit: probeLimit,
            concurrencyPartition: partitions[0].label
        )
        observations.maxPagesPerDrain = options.maxPagesPerDrain
        let first = try await drain(partitions[0], limit: probeLimit, source, gate)
        if first.exchanges.isEmpty, case .failed(let exchange) = first.end, !exchange.isThrottled {
            let reason = if case .failure(_, let message) = exchange.outcome { message } else { "" }
            throw VerifyError.unreachable("target \(target.name): the first page failed: \(reason)")
        }
        observations.drains.append(first)
        let probed = try await probeTokens(&observations, source, gate)
        try await probeErrors(&observations, source, gate)
        for limit in limits.reversed() {
            for partition in partitions where partition.index != partitions[0].index || limit != probeLimit {
                observations.drains.append(try await drain(partition, limit: limit, source, gate))
            }
        }
        if !probed {  // the first drain had one page: another drain of the first partition may have two
            _ = try await probeTokens(&observations, source, gate)
        }
        // V7: a few drains at once, as alone.
        observations.concurrent =
            options.concurrency < 2
            ? []
            : try await withThrowingTaskGroup(of: DrainRecord.self) { group in
                for _ in 0..<options.concurrency {
                    group.addTask {
                        try await self.drain(partitions[0], limit: probeLimit, source, gate, burst: options.concurrency)
                    }
                }
                var drains: [DrainRecord] = []
                for try await drain in group { drains.append(drain) }
                return drains
            }
        return observations
    }

    /// V4 and V5: a continuation of the first partition sent again, on a new connection, and
    /// altered. False when no drain of the first partition had a second page yet.
    func probeTokens(
        _ observations: inout Observations,
        _ source: TargetSource,
        _ gate: RequestGate
    ) async throws -> Bool {
        let tokenDrain =
            observations.drains.first {
                $0.partition == partitions[0].label && $0.limit == probeLimit && $0.pages.count >= 2
            }
            ?? observations.drains.first { $0.partition == partitions[0].label && $0.pages.count >= 2 }
        guard let tokenDrain, let token = tokenDrain.pages[0].token else { return false }
        let limit = tokenDrain.limit
        let again = request(partitions[0], limit: limit, token: token)
        var stability = Stability(token: token, limit: limit, expected: tokenDrain.exchanges[1])
        stability.again.append(try await probe("the same token again", again, source, gate))
        stability.again.append(try await probe("the same token a third time", again, source, gate))
        let fresh = try makeSource(connections: 1)
        do {
            stability.again.append(try await probe("the token on a new connection", again, fresh, gate))
            await fresh.shutdown()
        } catch {
            await fresh.shutdown()
            throw error
        }
        observations.stability = stability
        // V5: tokens the API never issued for the request they are sent with.
        let kind = target.kind
        observations.tokenProbes.append(
            try await probe(
                "a garbled token",
                request(partitions[0], limit: limit, token: Self.garbled(token, kind)),
                source,
                gate
            )
        )
        let truncated = Self.truncated(token, kind)
        if truncated != token {  // a one-character token has no shorter form but none
            observations.tokenProbes.append(
                try await probe(
                    "a truncated token",
                    request(partitions[0], limit: limit, token: truncated),
                    source,
                    gate
                )
            )
        }
        if let other = otherPartition {
            var otherToken = observations.drains.first { $0.partition == other.label && $0.limit == limit }?.pages
                .first?.token
            if otherToken == nil,
                !observations.drains.contains(where: { $0.partition == other.label && $0.limit == limit })
            {
                otherToken = try await probe(
                    "the first page of \(other.label)",
                    request(other, limit: limit),
                    source,
                    gate
                ).exchange?.page?.token
            }
            if let otherToken, otherToken != token {
                observations.tokenProbes.append(
                    try await probe(
                        "partition \(other.label)'s token with partition \(partitions[0].label)",
                        request(partitions[0], limit: limit, token: otherToken),
                        source,
                        gate
                    )
                )
            } else {
                observations.tokenNotes.append(
                    "partition \(other.label) gave no token at limit \(limit) to send with \(partitions[0].label)"
                )
            }
        }
        if let otherFilter, let filter {
            let filtered = try makeSource(connections: 1, filter: otherFilter)
            do {
                observations.tokenProbes.append(
                    try await probe(
                        "filter \(Self.text(filter))'s token with filter \(Self.text(otherFilter))",
                        request(partitions[0], limit: limit, token: token),
                        filtered,
                        gate
                    )
                )
                await filtered.shutdown()
            } catch {
                await filtered.shutdown()
                throw error
            }
        }
        if bindsLimit, let otherLimit = limits.first(where: { $0 != limit }) {
            observations.tokenProbes.append(
                try await probe(
                    "a limit-\(limit) token at limit \(otherLimit)",
                    request(partitions[0], limit: otherLimit, token: token),
                    source,
                    gate
                )
            )
        }
        return true
    }

    /// V6: requests that must be refused with an error answer (or answered with a page).
    func probeErrors(_ observations: inout Observations, _ source: TargetSource, _ gate: RequestGate) async throws {
        for bad in [0, -1, Self.hugeLimit] {
            observations.errorProbes.append(
                try await probe("limit \(bad)", request(partitions[0], limit: bad), source, gate)
            )
        }
        if let unknown = unknownPartition {
            observations.errorProbes.append(
                try await probe("unknown partition \(unknown.label)", request(unknown, limit: probeLimit), source, gate)
            )
        }
    }

    /// One drain of `partition` at `limit`, within the page bound and the gate; `burst`: its
    /// requests share their slot with those of the other drains at once (V7).
    func drain(
        _ partition: (index: Int, label: String),
        limit: Int,
        _ source: TargetSource,
        _ gate: RequestGate,
        burst: Int = 1
    ) async throws -> DrainRecord {
        var record = DrainRecord(partition: partition.label, limit: limit, exchanges: [], end: .last, throttles: 0)
        var token: String?
        var carried: [String: Int] = [:]  // continuation → the page (1-based) that carried it
        while true {
            guard record.exchanges.count < options.maxPagesPerDrain else {
                record.end = .cut("the page bound was reached (--max-pages \(options.maxPagesPerDrain))")
                return record
            }
            let sent = try await send(request(partition, limit: limit, token: token), source, gate, burst: burst)
            guard case .answered(let exchange, let throttles) = sent else {
                if case .notSent(let reason) = sent { record.end = .cut(reason) }
                return record
            }
            record.throttles += throttles
            guard let page = exchange.page else {
                record.end = .failed(exchange)
                return record
            }
            record.exchanges.append(exchange)
            guard let next = page.token else {
                record.end = .last
                return record
            }
            if let first = carried[next] {
                record.end = .repeated(token: next, first: first, again: record.exchanges.count)
                return record
            }
            carried[next] = record.exchanges.count
            token = next
        }
    }

    enum Sent {
        case answered(TargetExchange, throttles: Int)
        case notSent(String)
    }

    /// Sends `request` through the gate; a throttling answer is waited out (its
    /// `Retry-After`, at most 30 s) and retried up to `throttleRetries` times.
    func send(_ request: PageRequest, _ source: TargetSource, _ gate: RequestGate, burst: Int = 1) async throws -> Sent
    {
        var throttles = 0
        while true {
            do {
                try await gate.admit(burst: burst)
            } catch let closed as RequestGate.Closed {
                return .notSent(closed.reason)
            }
            let exchange = try await source.exchange(request)
            guard exchange.isThrottled, throttles < options.throttleRetries else {
                return .answered(exchange, throttles: throttles)
            }
            throttles += 1
            let wait = min(
                Double(exchange.retryAfterSeconds ?? throttles),
                Double(TargetSource.maximumRetryAfterSeconds)
            )
            try await Task.sleep(for: .seconds(wait))
        }
    }

    func probe(
        _ name: String,
        _ request: PageRequest,
        _ source: TargetSource,
        _ gate: RequestGate
    ) async throws -> Probe {
        switch try await send(request, source, gate) {
        case .answered(let exchange, _): Probe(name: name, exchange: exchange, notSent: nil)
        case .notSent(let reason): Probe(name: name, exchange: nil, notSent: reason)
        }
    }

    // MARK: Tokens the API never issued

    /// `token` with one character changed in its middle, of the same class (a digit for a
    /// digit, a letter for a letter), so that it still looks like a token; a DynamoDB key with
    /// one attribute renamed.
    static func garbled(_ token: String, _ kind: Target.Kind) -> String {
        if kind == .dynamodb, case .object(let members)? = try? JSONValue.parse(token),
            let first = members.keys.sorted().first
        {
            var changed = members
            changed[first + "x"] = changed.removeValue(forKey: first)
            return JSONValue.object(changed).text
        }
        var characters = Array(token)
        guard !characters.isEmpty else { return "x" }
        let middle = characters.count / 2
        let character = characters[middle]
        let replacement: Character =
            if let digit = character.wholeNumberValue, character.isASCII {
                Character(String((digit + 1) % 10))
            } else if character.isASCII, character.isLowercase {
                character == "z" ? "a" : Character(UnicodeScalar(character.asciiValue! + 1))
            } else if character.isASCII, character.isUppercase {
                character == "Z" ? "A" : Character(UnicodeScalar(character.asciiValue! + 1))
            } else {
                character == "A" ? "B" : "A"
            }
        characters[middle] = replacement
        return String(characters)
    }

    /// The first half of `token`; a DynamoDB key with only its first attribute.
    static func truncated(_ token: String, _ kind: Target.Kind) -> String {
        if kind == .dynamodb, case .object(let members)? = try? JSONValue.parse(token),
            let first = members.keys.sorted().first
        {
            return members.count > 1 ? JSONValue.object([first: members[first]!]).text : "{}"
        }
        return String(token.prefix(max(1, token.count / 2)))
    }
}

extension TargetExchange {
    /// A throttling answer (T3), or a GraphQL error answer whose `extensions.code` says
    /// throttling (``GraphQLErrorReading``): waited out and retried as a 429 is.
    var isThrottled: Bool {
        if case .failure(.throttled, _) = outcome { return true }
        if !graphQLErrorCodes.isEmpty, case .throttled = GraphQLErrorReading(codes: graphQLErrorCodes) { return true }
        return false
    }
}
