import PushMockJSON

/// A request body and its JSON form, parsed on first use and then shared by every step that
/// reads it (fault rules with payload predicates, lint), so no step parses it twice. A class
/// so that the value can be shared by the exchange and the fault subject; it never leaves the
/// connection's event loop.
final class PayloadView {
    let bytes: [UInt8]
    private var parsed: Result<JSONValue, any Error>??

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A body an endpoint has parsed already.
    init(bytes: [UInt8], json: JSONValue) {
        self.bytes = bytes
        self.parsed = .some(.success(json))
    }

    /// The body as JSON; `nil` when it is empty or not JSON.
    var json: JSONValue? {
        guard case .success(let value) = result else { return nil }
        return value
    }

    /// The parse, once: `nil` for an empty body.
    var result: Result<JSONValue, any Error>? {
        if let parsed { return parsed }
        let value: Result<JSONValue, any Error>? = bytes.isEmpty ? nil : Result { try JSONValue(parsing: bytes) }
        parsed = .some(value)
        return value
    }
}
