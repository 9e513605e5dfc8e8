import PushMockCheckAPI
import PushMockCore
import PushMockGateway
public import PushMockRecording
public import PushMockToolkit

extension PushMockHarness {
    /// Recorded exchanges matching `query`, oldest first.
    public func records(_ query: RecordingQuery = RecordingQuery()) -> [ExchangeRecord] {
        recordings.records(matching: query)
    }

    /// Waits (real time) until `count` exchanges match `query` — for code under test that sends
    /// asynchronously — and returns the matches (fewer on timeout).
    public func wait(for query: RecordingQuery, count: Int = 1, timeout: Duration = .seconds(5)) async -> [ExchangeRecord] {
        await recordings.wait(for: query, count: count, timeout: timeout)
    }

    /// Asserts how many exchanges match `query` (default exactly one), waiting up to `within`
    /// for them. Throws ``ExpectationFailure`` — whose description shows what was expected,
    /// what was received and the nearest misses — so it fails Swift Testing and XCTest alike.
    /// With `deepLink`, only notifications whose link opens that screen count (see
    /// ``DeepLinkRequirement``).
    @discardableResult
    public func expect(
        _ query: RecordingQuery,
        count: CountRule = .exactly(1),
        within: Duration? = nil,
        deepLink: DeepLinkRequirement? = nil,
        _ name: String? = nil
    ) async throws(ExpectationFailure) -> [ExchangeRecord] {
        try await expect(Expectation(name: name, query: query, count: count, within: within, deepLink: deepLink))
    }

    /// Asserts an ``Expectation`` built elsewhere (or decoded from JSON); returns the matches.
    @discardableResult
    public func expect(_ expectation: Expectation) async throws(ExpectationFailure) -> [ExchangeRecord] {
        let result = await recordings.evaluate(expectation)
        guard result.passed else { throw ExpectationFailure(result) }
        return recordings.records(matching: expectation.query).filter(expectation.matches)
    }

    /// The deep-link check over the exchanges matching `query` (default: all).
    public func checkLinks(
        _ routes: RouteTable,
        options: DeepLinkChecker.Options = DeepLinkChecker.Options(),
        _ query: RecordingQuery = RecordingQuery()
    ) -> DeepLinkReport {
        DeepLinkChecker(routes: routes, options: options).check(records(query))
    }

    /// The policy check over the exchanges matching `query` (default: all), judging each push
    /// against its recipient's user (``addUser(_:)``) and the app events posted for them.
    public func checkPolicy(_ policy: PolicyFile, _ query: RecordingQuery = RecordingQuery()) -> PolicyReport {
        PolicyChecker(policy: policy, users: state.users.snapshot()).check(records(query))
    }

    /// The payload-contract check over the exchanges matching `query` (default: all).
    public func checkContracts(_ contracts: ContractFile, _ query: RecordingQuery = RecordingQuery()) -> ContractReport {
        ContractChecker(contracts: contracts).check(records(query))
    }

    /// Checks `contracts` at intake from now on: every accepted push's record carries its
    /// violations in `notification.lint` (codes `contract.<name>.<keyword>`), replacing
    /// contracts installed before; `nil` stops checking.
    public func checkContractsAtIntake(_ contracts: ContractFile?) {
        guard let contracts else {
            state.recordAnnotators.remove(named: ContractAnnotator.installedName)
            return
        }
        state.recordAnnotators.install(ContractAnnotator(contracts: contracts))
    }

    /// Asserts that nothing matches `query` — watching for `within` when given.
    public func expectNothing(_ query: RecordingQuery, within: Duration? = nil) async throws(ExpectationFailure) {
        try await expect(query, count: .none, within: within)
    }

    /// Asserts that exchanges matching `steps` were recorded in this order (others may come
    /// between).
    public func expectOrder(_ steps: [RecordingQuery]) throws(ExpectationFailure) {
        let result = recordings.evaluate(OrderExpectation(steps: steps))
        guard result.passed else { throw ExpectationFailure(result) }
    }
}

/// A failed expectation; its description is the readable report.
public struct ExpectationFailure: Error, CustomStringConvertible, Sendable {
    public let result: ExpectationResult

    public init(_ result: ExpectationResult) { self.result = result }

    public var description: String { result.message }
}
