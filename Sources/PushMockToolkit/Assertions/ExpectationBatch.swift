public import Foundation
import PushMockCore
import PushMockJSON
import PushMockQuery

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
        do {
            try self.init(json: data, files: .fileSystem)
        } catch {
            switch error {
            case .query(let error): throw error
            case .refused(let refusal): throw QueryError("\(refusal.path): \(refusal.reason)")
            }
        }
    }

    /// Reads any of the three forms, with the route-table files its deep-link requirements
    /// name read through `files`.
    package init(json data: Data, files: DefinitionFileReader) throws(ExpectationBatchError) {
        let decoder = JSONDecoder()
        decoder.userInfo[.definitionFileReader] = files
        // The form shows in the document's shape; its problems are reported for that form.
        func decode<T: Decodable>(_ type: T.Type) throws(ExpectationBatchError) -> T {
            do {
                return try decoder.decode(type, from: data)
            } catch let refusal as DefinitionFileRefusal {
                throw .refused(refusal)
            } catch let error as DecodingError {
                throw .query(QueryError("not an expectation, an array of them or {\"expectations\": …}: \(error.readableDescription)"))
            } catch {
                throw .query(QueryError("not an expectation, an array of them or {\"expectations\": …}: \(error)"))
            }
        }
        switch try? JSONValue(parsing: data) {
        case .array?:
            self.init(expectations: try decode([Expectation].self))
        case .object(let members)? where members["expectations"] != nil || members["order"] != nil:
            let wrapped = try decode(Wrapped.self)
            self.init(expectations: wrapped.expectations ?? [], order: wrapped.order ?? [])
        default:
            self.init(expectations: [try decode(Expectation.self)])
        }
        guard !expectations.isEmpty || !order.isEmpty else { throw .query(QueryError("no expectations given")) }
        // A check waits at most this long, from a file as through the API (`--within` too).
        guard longestWait <= Self.longestWithin else {
            throw .query(QueryError("within is at most \(Self.longestWithin.components.seconds)s"))
        }
    }

    /// The longest `within` a batch read from JSON may ask for.
    public static let longestWithin: Duration = .seconds(300)

    /// The longest `within`: how long judging the batch may take.
    public var longestWait: Duration { expectations.compactMap(\.within).max() ?? .zero }

    private struct Wrapped: Decodable {
        var expectations: [Expectation]?
        var order: [OrderExpectation]?

        enum CodingKeys: String, CodingKey, CaseIterable { case expectations, order }

        init(from decoder: any Decoder) throws {
            try UnknownMembers.reject(in: decoder, known: CodingKeys.allCases.map(\.rawValue), what: "a batch of expectations")
            let container = try decoder.container(keyedBy: CodingKeys.self)
            expectations = try container.decodeIfPresent([Expectation].self, forKey: .expectations)
            order = try container.decodeIfPresent([OrderExpectation].self, forKey: .order)
        }
    }
}

/// Why a batch could not be read: not a batch, or it names a file the reader refused.
package enum ExpectationBatchError: Error {
    case query(QueryError)
    case refused(DefinitionFileRefusal)
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
