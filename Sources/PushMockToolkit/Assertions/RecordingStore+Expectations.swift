import PushMockCore
import PushMockQuery
public import PushMockRecording

extension RecordingStore {
    /// Judges an expectation, waiting up to its `within` for asynchronous senders.
    public func evaluate(_ expectation: Expectation) async -> ExpectationResult {
        await waitForWindow(of: expectation)
        return judge(expectation)
    }

    /// The wait part of ``evaluate(_:)-(Expectation)``: until enough matches arrived, or the
    /// expectation's `within` passed. Cheap: each new record is looked at once.
    package func waitForWindow(of expectation: Expectation) async {
        if let within = expectation.within {
            if expectation.waitsForWholeWindow {
                // "Nothing (or at most N) within 5 s": only the whole window can tell.
                try? await Task.sleep(for: within)
            } else {
                let query = expectation.query
                _ = await waitForMatches(
                    count: expectation.count.minimum, timeout: within, prefilter: { query.mayMatch($0) }, matches: expectation.matches)
            }
        }
    }

    /// The judging part of ``evaluate(_:)-(Expectation)``, on the records there are now. It
    /// decodes every record of the query's platform (near misses come from them): blocking
    /// work, which the control API runs on its own threads rather than Swift's shared pool.
    package func judge(_ expectation: Expectation) -> ExpectationResult {
        ExpectationEvaluator.evaluate(expectation, records: candidates(for: expectation.query))
    }

    /// Judges an order of notifications.
    public func evaluate(_ order: OrderExpectation) -> ExpectationResult {
        let platforms: [Platform?] = order.steps.map(\.platform)
        let namespaces: [String?] = order.steps.map(\.namespace)
        let prefilter = RecordingQuery(platform: platforms.allEqual ?? nil, namespace: namespaces.allEqual ?? nil)
        return ExpectationEvaluator.evaluate(order, records: candidates(for: prefilter))
    }

    /// What an expectation is judged against: every retained exchange of the query's platform
    /// and namespace (so near misses can come from other tokens and payloads), oldest first.
    private func candidates(for query: RecordingQuery) -> [ExchangeRecord] {
        let scope = RecordingQuery(platform: query.platform, namespace: query.namespace)
        return entries(matching: { scope.mayMatch($0) }, newestFirst: false).compactMap { try? $0.record() }
    }
}

extension Array where Element: Equatable {
    /// The common value when every element is the same, else `nil`.
    var allEqual: Element? {
        guard let first, allSatisfy({ $0 == first }) else { return nil }
        return first
    }
}
