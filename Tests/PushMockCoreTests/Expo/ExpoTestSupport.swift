import PushMockCore
import PushMockJSON

/// Parses `json` as a send request with `options`; the request error when it is refused.
func parseExpo(
    _ json: String,
    options: ExpoValidationOptions = ExpoValidationOptions(),
    projectOf: (ExpoPushToken) -> String? = { _ in nil }
) -> Result<ExpoSendRequest, ExpoRequestError> {
    Result { () throws(ExpoRequestError) -> ExpoSendRequest in
        try ExpoPushRequestParser.parse(body: Array(json.utf8), options: options, projectOf: projectOf)
    }
}

/// The request error `json` is refused with, or `nil` when it is accepted.
func expoRequestError(_ json: String, options: ExpoValidationOptions = ExpoValidationOptions()) -> ExpoRequestError? {
    if case .failure(let error) = parseExpo(json, options: options) { return error }
    return nil
}

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

let sampleToken = "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"
