public import Foundation

/// The expectations of one check — the body of `POST /_pushmock/expectations` and the file of
/// `pushmock expect --file`: one expectation, an array of them, or
/// `{"expectations": […], "order": [{"steps": […]}, …]}`.
public struct ExpectationBatch: Sendable, Hashable, Codable {
    public var expectations: [Expectation]
    public var order: [OrderExpectation]

    public init(expectations: [Expectation], order: [OrderExpectation] = []) {
        self.expectations = expectations
        self.order = order
    }

    /// Reads any of the three forms; a batch with nothing in it is an error.
    public init(json data: Data) throws(QueryError) {
        let decoder = JSONDecoder()
        if let many = try? decoder.decode([Expectation].self, from: data) {
            self.init(expectations: many)
        } else if let wrapped = try? decoder.decode(Wrapped.self, from: data), wrapped.expectations != nil || wrapped.order != nil {
            self.init(expectations: wrapped.expectations ?? [], order: wrapped.order ?? [])
        } else {
            do {
                self.init(expectations: [try decoder.decode(Expectation.self, from: data)])
            } catch {
                throw QueryError("not an expectation, an array of them or {\"expectations\": …}: \(error)")
            }
        }
        guard !expectations.isEmpty || !order.isEmpty else { throw QueryError("no expectations given") }
    }

    /// The longest `within`: how long judging the batch may take.
    public var longestWait: Duration { expectations.compactMap(\.within).max() ?? .zero }

    private struct Wrapped: Decodable {
        var expectations: [Expectation]?
        var order: [OrderExpectation]?
    }
}

/// The verdict on a batch, as `POST /_pushmock/expectations` and `pushmock expect --json`
/// write it.
public struct ExpectationReport: Sendable, Hashable, Codable {
    public var passed: Bool
    public var results: [ExpectationResult]

    public init(results: [ExpectationResult]) {
        self.passed = results.allSatisfy(\.passed)
        self.results = results
    }
}
