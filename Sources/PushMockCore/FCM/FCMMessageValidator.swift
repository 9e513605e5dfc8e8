public import PushMockJSON

/// Validates the body of `POST /v1/projects/<p>/messages:send` the way FCM does, and returns
/// the typed request or the exact error FCM would send.
///
/// Order of checks (the first failing step decides the response; `docs/fcm-validation.md` has
/// the texts and their sources):
///
/// 1. JSON syntax → `Invalid JSON payload received. <protobuf parser reason>` plus context.
///    An empty (or all-whitespace) body reads as `{}`, as Google's transcoder treats it.
/// 2. The root must be an object → `Unknown name "": Root element must be a message.`
/// 3. The schema (``FCMSchema``), all problems at once, one line each: unknown names, wrong
///    value types, a second target (see ``FCMSchemaReader``).
/// 4. `message` missing or without a target → "Recipient of the message is not set."
/// 5. The target: token format (``FCMRegistrationToken``), topic name (``FCMTopicName``),
///    condition grammar and topic count (``FCMCondition``), FID format (``FCMInstallationID``).
/// 6. Reserved keys in `message.data`.
/// 7. `android`: TTL range, reserved keys in `android.data`, notification (colour, `*_loc_args`
///    without `*_loc_key`, negative `notification_count`, light settings, vibrate timings),
///    analytics label.
/// 8. `webpush`: `https://` link, analytics label.
/// 9. `apns`: headers with ``APNsRequestRules/parseHeaders(_:)``, payload size with
///    ``APNsRequestRules/checkPayload(byteCount:pushType:)``, analytics label.
/// 10. `fcm_options.analytics_label`.
/// 11. Payload size: 4096 bytes, 2048 for topic and condition sends.
///
/// **Measured payload size** ("includes both the keys and the values"): the UTF-8 bytes of
/// every key and value of `message.data`, plus the UTF-8 bytes of the top-level
/// `notification.title`, `.body` and `.image`. Platform blocks (`android.data`,
/// `android.notification`, `webpush`, `apns`) are not counted, as FCM does not count them.
public enum FCMMessageValidator {
    /// The longest TTL FCM accepts (and its default): four weeks.
    public static let maximumTTLSeconds: Int64 = 2_419_200
    /// Nesting limit of the request JSON (protobuf's JSON parser stops at 100 levels).
    public static let maximumJSONDepth = 100

    /// Validates a request body.
    public static func validate(body: [UInt8], options: FCMValidationOptions = .init())
        -> Result<FCMSendRequest, FCMError>
    {
        let root: JSONValue
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            root = .object(JSONObject())
        } else {
            do {
                root = try JSONValue(parsing: body, maxDepth: maximumJSONDepth)
            } catch {
                let text = FCMJSONSyntaxMessage.text(for: error, in: body)
                return .failure(
                    FCMError(
                        status: .invalidArgument,
                        message: text,
                        details: [.badRequest([FCMError.FieldViolation(field: nil, description: text)])]
                    )
                )
            }
        }
        return validate(json: root, options: options)
    }

    /// Validates a request body that is already parsed.
    public static func validate(json root: JSONValue, options: FCMValidationOptions = .init())
        -> Result<FCMSendRequest, FCMError>
    {
        guard case .object(let object) = root else {
            return .failure(.payload([.rootNotMessage()]))
        }
        var reader = FCMSchemaReader()
        let request = reader.readMessage(object, schema: FCMSchema.sendMessageRequest, path: "")
        guard reader.issues.isEmpty else {
            return .failure(.payload(reader.issues))
        }
        guard let parsedMessage = request.message("message"),
            let rawMessage = object.members.last(where: { $0.key == "message" && !$0.value.isNull })?.value
        else {
            return .failure(.recipientNotSet())
        }
        let checker = FCMSemanticChecker(options: options)
        do {
            let message = try checker.check(parsedMessage)
            return .success(
                FCMSendRequest(
                    validateOnly: request.bool("validate_only") ?? false,
                    message: message,
                    rawMessage: rawMessage
                )
            )
        } catch {
            return .failure(error)
        }
    }
}
