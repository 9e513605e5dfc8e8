/// One problem Google's JSON transcoder reports while mapping the request body onto the proto
/// schema. Its two shapes come from protobuf's `ProtoWriter` as Google's front end renders them:
///
/// * an *invalid name* at the path of the enclosing object —
///   `Invalid JSON payload received. Unknown name "x" at 'message.android': Cannot find field.`
///   (at the top level just `Unknown name "x": Cannot find field.`); the violation's `field` is
///   the enclosing path (absent at the top level);
/// * an *invalid value* at the path of the value itself —
///   `Invalid value at 'message.data[0].value' (TYPE_STRING), 12`; the violation's `field` is
///   that path.
struct FCMPayloadIssue: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case invalidName(name: String, location: String, reason: String)
        case invalidValue(location: String, type: String, value: String)
    }

    let kind: Kind

    static func unknownName(_ name: String, at location: String) -> FCMPayloadIssue {
        FCMPayloadIssue(kind: .invalidName(name: name, location: location, reason: "Cannot find field."))
    }

    static func notRepeating(_ name: String, at location: String) -> FCMPayloadIssue {
        FCMPayloadIssue(
            kind: .invalidName(name: name, location: location, reason: "Proto field is not repeating, cannot start list.")
        )
    }

    static func rootNotMessage() -> FCMPayloadIssue {
        FCMPayloadIssue(kind: .invalidName(name: "", location: "", reason: "Root element must be a message."))
    }

    static func invalidValue(at location: String, type: String, _ value: String) -> FCMPayloadIssue {
        FCMPayloadIssue(kind: .invalidValue(location: location, type: type, value: value))
    }

    /// The line of the error message.
    var text: String {
        switch kind {
        case .invalidName(let name, let location, let reason):
            if location.isEmpty {
                return "Invalid JSON payload received. Unknown name \"\(name)\": \(reason)"
            }
            return "Invalid JSON payload received. Unknown name \"\(name)\" at '\(location)': \(reason)"
        case .invalidValue(let location, let type, let value):
            return "Invalid value at '\(location)' (\(type)), \(value)"
        }
    }

    /// The `BadRequest` violation for this problem.
    var violation: FCMError.FieldViolation {
        switch kind {
        case .invalidName(_, let location, _):
            return FCMError.FieldViolation(field: location.isEmpty ? nil : location, description: text)
        case .invalidValue(let location, _, _):
            return FCMError.FieldViolation(field: location.isEmpty ? nil : location, description: text)
        }
    }
}
