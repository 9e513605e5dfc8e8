import PushMockCore
import PushMockJSON
import Testing

/// Shared helpers of the FCM tests: building request bodies, and comparing error bodies by
/// decoding them (never by substring).
enum FCMTest {
    /// A token the lenient rule accepts.
    static let token = "fake-token-0001"

    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"

    /// `{"message": message}` plus extra top-level members, as bytes.
    static func body(_ message: JSONValue, _ extra: [(String, JSONValue)] = []) -> [UInt8] {
        var object = JSONObject([(key: "message", value: message)])
        for (key, value) in extra {
            object.append(key: key, value: value)
        }
        return JSONValue.object(object).compactBytes
    }

    /// Parses JSON text written in a test (crashes the test on a typo, which is what we want).
    static func json(_ text: String) -> JSONValue {
        do {
            return try JSONValue(parsing: text)
        } catch {
            Issue.record("test JSON does not parse: \(error): \(text)")
            return .null
        }
    }

    static func validate(_ text: String, options: FCMValidationOptions = .init()) -> Result<FCMSendRequest, FCMError> {
        FCMMessageValidator.validate(body: Array(text.utf8), options: options)
    }

    static func validate(message: JSONValue, options: FCMValidationOptions = .init())
        -> Result<FCMSendRequest, FCMError>
    {
        FCMMessageValidator.validate(body: body(message), options: options)
    }

    /// The request, or a recorded issue.
    static func success(
        _ result: Result<FCMSendRequest, FCMError>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> FCMSendRequest? {
        switch result {
        case .success(let request):
            return request
        case .failure(let error):
            Issue.record("expected success, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// The error, or a recorded issue.
    static func failure(
        _ result: Result<FCMSendRequest, FCMError>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> FCMError? {
        switch result {
        case .success(let request):
            Issue.record("expected an error, got \(request.message)", sourceLocation: sourceLocation)
            return nil
        case .failure(let error):
            return error
        }
    }

    /// Decodes the rendered body and compares it with `expected`, including member order.
    static func expectBody(
        _ error: FCMError,
        _ expected: JSONValue,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let rendered: JSONValue
        do {
            rendered = try JSONValue(parsing: error.body())
        } catch {
            Issue.record("body is not JSON: \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(rendered == expected, sourceLocation: sourceLocation)
        // `==` ignores member order; the compact text does not.
        #expect(rendered.compactString == expected.compactString, sourceLocation: sourceLocation)
        #expect(error.httpStatus == expected["error"]?["code"]?.intValue, sourceLocation: sourceLocation)
    }

    /// Expects `result` to fail with exactly `expected` as body.
    static func expectError(
        _ result: Result<FCMSendRequest, FCMError>,
        _ expected: JSONValue,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error = failure(result, sourceLocation: sourceLocation) else { return }
        expectBody(error, expected, sourceLocation: sourceLocation)
    }

    /// `{"error":{"code":…,"message":…,"status":…[,"details":…]}}`.
    static func errorBody(code: Int, status: String, message: String, details: [JSONValue] = []) -> JSONValue {
        var inner: JSONObject = ["code": JSONValue(code), "message": .string(message), "status": .string(status)]
        if !details.isEmpty {
            inner.append(key: "details", value: .array(details))
        }
        return ["error": .object(inner)]
    }

    static func fcmError(_ code: String) -> JSONValue {
        ["@type": .string(fcmErrorType), "errorCode": .string(code)]
    }

    static func badRequest(_ violations: [(field: String?, description: String)]) -> JSONValue {
        let list: [JSONValue] = violations.map { violation in
            if let field = violation.field {
                return ["field": .string(field), "description": .string(violation.description)]
            }
            return ["description": .string(violation.description)]
        }
        return ["@type": .string(badRequestType), "fieldViolations": .array(list)]
    }

    /// A transcoder error: lines joined by `\n`, one violation each, no FcmError.
    static func payloadError(_ lines: [(text: String, field: String?)]) -> JSONValue {
        errorBody(
            code: 400,
            status: "INVALID_ARGUMENT",
            message: lines.map(\.text).joined(separator: "\n"),
            details: [badRequest(lines.map { ($0.field, $0.text) })]
        )
    }

    /// A rule violation: FcmError INVALID_ARGUMENT, then a BadRequest on `field`.
    static func ruleError(field: String, description: String, message: String? = nil) -> JSONValue {
        errorBody(
            code: 400,
            status: "INVALID_ARGUMENT",
            message: message ?? description,
            details: [fcmError("INVALID_ARGUMENT"), badRequest([(field, description)])]
        )
    }

    /// `Invalid value at '<path>' (<type>), <value>` as a one-line payload error.
    static func invalidValue(_ path: String, _ type: String, _ value: String) -> JSONValue {
        let text = "Invalid value at '\(path)' (\(type)), \(value)"
        return payloadError([(text, path)])
    }

    /// `Unknown name "<name>" at '<path>': Cannot find field.` as a one-line payload error.
    static func unknownName(_ name: String, at path: String) -> JSONValue {
        payloadError([unknownNameLine(name, at: path)])
    }

    static func unknownNameLine(_ name: String, at path: String, reason: String = "Cannot find field.")
        -> (text: String, field: String?)
    {
        if path.isEmpty {
            return ("Invalid JSON payload received. Unknown name \"\(name)\": \(reason)", nil)
        }
        return ("Invalid JSON payload received. Unknown name \"\(name)\" at '\(path)': \(reason)", path)
    }

    /// Applies `change` to the object at `path` (dot-separated member names, created as needed).
    static func modifying(_ value: JSONValue, at path: [String], _ change: (inout JSONObject) -> Void) -> JSONValue {
        var object = value.objectValue ?? JSONObject()
        if let first = path.first {
            let child = object[first] ?? .object(JSONObject())
            object[first] = modifying(child, at: Array(path.dropFirst()), change)
        } else {
            change(&object)
        }
        return .object(object)
    }

    /// A valid request with everything in `message` plus the token target.
    static func message(_ members: [(String, JSONValue)]) -> JSONValue {
        var object = JSONObject([(key: "token", value: .string(token))])
        for (key, value) in members {
            object.append(key: key, value: value)
        }
        return .object(object)
    }
}
