import Foundation
import PushMockCore
import Testing

/// App events arrive in users files and `users` members of checks, written by people or by
/// `pushmock user export` (which writes both `time` and `timeMilliseconds`).
@Suite("App events as JSON")
struct AppEventTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var json: String
        /// The event's time, or nil when it must be refused.
        var milliseconds: Int64?
        /// What the refusal names.
        var error: String = ""
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        .init(name: "time alone", json: #""time": "2026-11-21T10:02:00Z""#, milliseconds: 1_795_255_320_000),
        .init(name: "timeMilliseconds alone", json: #""timeMilliseconds": 1795255320000"#, milliseconds: 1_795_255_320_000),
        .init(
            name: "both, agreeing (an export)", json: #""time": "2026-11-21T10:02:00.000Z", "timeMilliseconds": 1795255320000"#,
            milliseconds: 1_795_255_320_000),
        .init(
            name: "both, disagreeing", json: #""time": "1970-01-01T00:00:01Z", "timeMilliseconds": 0"#,
            error: ".timeMilliseconds: 0 is not the event's time 1970-01-01T00:00:01.000Z"),
        .init(
            name: "time beyond year 9999 beside timeMilliseconds", json: #""time": 253402300800000, "timeMilliseconds": 0"#,
            error: ".time: a time must be between"),
        .init(
            name: "timeMilliseconds beyond year 9999", json: #""timeMilliseconds": 253402300800000"#,
            error: ".timeMilliseconds: a time must be"),
        .init(name: "neither", json: #""sequence": 1"#, error: #"missing "time""#),
    ]

    @Test("time, timeMilliseconds or both; neither ignored", arguments: cases)
    func decoding(_ example: Case) throws {
        let json = Data(#"{"user": "u1", "name": "completeSetup", \#(example.json)}"#.utf8)
        if let milliseconds = example.milliseconds {
            #expect(try JSONDecoder().decode(AppEvent.self, from: json).timeMilliseconds == milliseconds)
        } else {
            #expect {
                try JSONDecoder().decode(AppEvent.self, from: json)
            } throws: { error in
                guard let error = error as? DecodingError else { return false }
                return error.readableDescription.hasPrefix(example.error)
            }
        }
    }

    @Test("an export reads back as the same events")
    func roundTrip() throws {
        let event = AppEvent(user: "u1", name: "completeSetup", timeMilliseconds: 1_763_719_320_123, sequence: 4, properties: ["step": "2"])
        #expect(try JSONDecoder().decode(AppEvent.self, from: JSONEncoder().encode(event)) == event)
    }

    @Test("a decoding error names its place, and no empty place at the top of the document")
    func readableDescription() throws {
        struct Top: Decodable {
            init(from decoder: any Decoder) throws {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not this"))
            }
        }
        #expect {
            try JSONDecoder().decode(Top.self, from: Data("{}".utf8))
        } throws: { error in
            (error as? DecodingError)?.readableDescription == "not this"
        }
        #expect {
            try JSONDecoder().decode([String: [Int]].self, from: Data(#"{"a": [1, "x"]}"#.utf8))
        } throws: { error in
            (error as? DecodingError)?.readableDescription.hasPrefix(".a[1]: ") == true
        }
    }
}
