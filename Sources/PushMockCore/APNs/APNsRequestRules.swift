/// The `apns-*` headers of a notification after the value checks passed: those of a device
/// push request, and FCM's `message.apns.headers` (both are checked by
/// ``APNsRequestRules/parseHeaders(_:)``).
public struct APNsNotificationHeaders: Sendable, Hashable {
    /// The `apns-id` the client sent (already checked to be a UUID), or `nil`.
    public var apnsID: String?
    /// ``apnsID`` parsed, when the request rules set it (the check parses it anyway, and the
    /// simulated device keeps the UUID as its value).
    package var apnsIDValue: UUIDText.Parsed?
    /// `apns-expiration` in seconds since the epoch; `0` = deliver now or never; `nil` = omitted.
    public var expiration: Int64?
    /// `apns-priority`, or `nil` when omitted (APNs then uses 10).
    public var priority: APNsPriority?
    /// `apns-push-type`, or `nil` when omitted.
    public var pushType: APNsPushType?
    /// `apns-topic`, or `nil` when omitted (or empty).
    public var topic: String?
    /// `apns-collapse-id`, or `nil`.
    public var collapseID: String?
    /// The index of the `authorization` field in the request's header list.
    public var authorizationIndex: Int?

    /// The priority APNs applies: the header, or 10.
    public var effectivePriority: APNsPriority { priority ?? .immediate }

    /// The push type APNs applies: the header, or the type the topic's suffix implies.
    public var effectivePushType: APNsPushType {
        if let pushType { return pushType }
        if let topic { return APNsPushType.inferred(fromTopic: topic) }
        return .alert
    }

    public init(
        apnsID: String? = nil,
        expiration: Int64? = nil,
        priority: APNsPriority? = nil,
        pushType: APNsPushType? = nil,
        topic: String? = nil,
        collapseID: String? = nil,
        authorizationIndex: Int? = nil
    ) {
        self.apnsID = apnsID
        self.expiration = expiration
        self.priority = priority
        self.pushType = pushType
        self.topic = topic
        self.collapseID = collapseID
        self.authorizationIndex = authorizationIndex
    }
}

/// A device push request after the stateless checks passed: the device token from the path
/// and the checked headers.
public struct APNsDeviceRequest: Sendable, Hashable {
    /// The device token exactly as it appears in the path.
    public var deviceToken: String
    public var headers: APNsNotificationHeaders

    public init(deviceToken: String, headers: APNsNotificationHeaders) {
        self.deviceToken = deviceToken
        self.headers = headers
    }
}

/// The stateless rules of `POST /3/device/<token>` (table C1 of the wire reference), applied in
/// a fixed, documented order. The stateful rules (authentication, token registry) run in the
/// gateway between ``parse(method:path:headers:tokenFormat:)`` and ``checkPayload(byteCount:pushType:)``.
///
/// Order (`docs/apns-validation-order.md` explains the choices):
/// 1. `DuplicateHeaders` — an `apns-*` or `authorization` header appears twice
/// 2. `BadMessageId` — `apns-id` present but not a UUID
/// 3. `BadPath` (404) — the path is not under `/3/device/`
/// 4. `MethodNotAllowed` (405) — the method is not POST
/// 5. `MissingDeviceToken` — `/3/device/` with nothing after it
/// 6. `BadPriority`, `BadExpirationDate`, `BadCollapseId`, `InvalidPushType`
/// 7. (gateway) authentication: provider token or client certificate
/// 8. (gateway) topic: `MissingTopic`, `BadTopic`, ``checkTopic(_:pushType:)`` → `TopicDisallowed`
/// 9. (gateway) `BadDeviceToken` for the format, then the registry: other environment,
///    `DeviceTokenNotForTopic`, 410 `Unregistered` / `ExpiredToken`
/// 10. ``checkPayload(byteCount:pushType:)``: `PayloadEmpty`, 413 `PayloadTooLarge`
public enum APNsRequestRules {
    /// The path prefix of the device endpoint.
    public static let devicePathPrefix = "/3/device/"

    /// Longest accepted `apns-collapse-id`, in bytes.
    public static let maximumCollapseIDBytes = 64

    /// Header names that must not repeat.
    static func mustBeUnique(_ headers: HTTPHeaderList, _ index: Int) -> Bool {
        if headers.nameLength(at: index) > 5, headers.nameStarts(at: index, with: "apns-") { return true }
        return headers.nameEquals(index, .authorization)
    }

    /// Finds a header that appears more than once among the ones APNs requires to be unique.
    public static func firstDuplicate(in headers: HTTPHeaderList) -> String? {
        let count = headers.count
        guard count > 1 else { return nil }
        for first in 0..<(count - 1) where mustBeUnique(headers, first) {
            let name = headers.nameBytes(at: first)
            for second in (first + 1)..<count where headers.nameBytes(at: second) == name {
                return String(decoding: name, as: UTF8.self)
            }
        }
        return nil
    }

    /// Applies steps 1–6. On failure the error comes with the `apns-id` to echo (the client's, if
    /// it was a valid UUID).
    ///
    /// `knownTopic`: a topic seen before on the connection (normally the previous request's).
    /// When `apns-topic` has exactly its bytes, the result shares that string instead of
    /// allocating a new one for every request.
    public static func parse(
        method: String,
        path: String,
        headers: HTTPHeaderList,
        tokenFormat: APNsDeviceTokenFormat = .variable,
        knownTopic: String? = nil
    ) -> Result<APNsDeviceRequest, APNsRequestError> {
        let values: APNsNotificationHeaders
        var valueFailure: APNsRequestError?
        switch parseHeaders(headers, knownTopic: knownTopic) {
        case .success(let parsed):
            values = parsed
        case .failure(let failure):
            // Steps 1 and 2 come before the path and method; step 6 after.
            if failure.error.reason == .duplicateHeaders || failure.error.reason == .badMessageId {
                return .failure(failure)
            }
            valueFailure = failure
            values = APNsNotificationHeaders()
        }
        let apnsID = valueFailure?.apnsID ?? values.apnsID
        // 3
        guard path.hasPrefix("/3/device/") else {
            return .failure(APNsRequestError(.badPath, apnsID: apnsID))
        }
        // 4
        guard method == "POST" else {
            return .failure(APNsRequestError(.methodNotAllowed, apnsID: apnsID))
        }
        // 5
        let token = path.utf8.dropFirst(10)  // "/3/device/"
        guard !token.isEmpty else {
            return .failure(APNsRequestError(.missingDeviceToken, apnsID: apnsID))
        }
        // 6
        if let valueFailure {
            return .failure(valueFailure)
        }
        return .success(APNsDeviceRequest(deviceToken: String(Substring(token)), headers: values))
    }

    /// Steps 1, 2 and 6: the checks of the `apns-*` header values alone, without a path or
    /// method. FCM's `apns.headers` are checked with this same function.
    ///
    /// `knownTopic`: see ``parse(method:path:headers:tokenFormat:knownTopic:)``.
    public static func parseHeaders(
        _ headers: HTTPHeaderList,
        knownTopic: String? = nil
    ) -> Result<APNsNotificationHeaders, APNsRequestError> {
        var values = APNsNotificationHeaders()
        var apnsIDIndex: Int?
        var expirationIndex: Int?
        var priorityIndex: Int?
        var pushTypeIndex: Int?
        var topicIndex: Int?
        var collapseIndex: Int?
        var authorizationIndex: Int?
        var duplicate = false
        var otherAPNsFields = 0
        // One pass: find the known fields, and notice any that repeats. Dispatched on the
        // name's length, so that most fields are compared with one name at most.
        for index in 0..<headers.count {
            switch headers.nameLength(at: index) {
            case 7 where headers.nameEquals(index, .apnsID):
                duplicate = duplicate || apnsIDIndex != nil
                apnsIDIndex = index
            case 15 where headers.nameEquals(index, .apnsExpiration):
                duplicate = duplicate || expirationIndex != nil
                expirationIndex = index
            case 13 where headers.nameEquals(index, .apnsPriority):
                duplicate = duplicate || priorityIndex != nil
                priorityIndex = index
            case 14 where headers.nameEquals(index, .apnsPushType):
                duplicate = duplicate || pushTypeIndex != nil
                pushTypeIndex = index
            case 10 where headers.nameEquals(index, .apnsTopic):
                duplicate = duplicate || topicIndex != nil
                topicIndex = index
            case 16 where headers.nameEquals(index, .apnsCollapseID):
                duplicate = duplicate || collapseIndex != nil
                collapseIndex = index
            case 13 where headers.nameEquals(index, .authorization):
                duplicate = duplicate || authorizationIndex != nil
                authorizationIndex = index
            default:
                if mustBeUnique(headers, index) { otherAPNsFields += 1 }
            }
        }
        values.authorizationIndex = authorizationIndex
        // Other apns-* names (unknown to this table) must not repeat either; rare, so the
        // quadratic check runs only when there are several of them.
        if !duplicate, otherAPNsFields > 1, firstDuplicate(in: headers) != nil {
            duplicate = true
        }

        // 2 (checked before 1 so that a valid apns-id is echoed on DuplicateHeaders too).
        var badMessageID = false
        if let apnsIDIndex {
            if let parsed = APNsMessageID.parse(headers.valueBytes(at: apnsIDIndex)) {
                values.apnsID = headers.value(at: apnsIDIndex)
                values.apnsIDValue = parsed
            } else {
                badMessageID = true
            }
        }
        let apnsID = values.apnsID
        // 1
        if duplicate {
            return .failure(APNsRequestError(.duplicateHeaders, apnsID: apnsID))
        }
        if badMessageID {
            return .failure(APNsRequestError(.badMessageId, apnsID: nil))
        }
        // 6
        if let priorityIndex {
            guard let parsed = APNsPriority(bytes: headers.valueBytes(at: priorityIndex)) else {
                return .failure(APNsRequestError(.badPriority, apnsID: apnsID))
            }
            values.priority = parsed
        }
        if let expirationIndex {
            guard let parsed = parseExpiration(headers.valueBytes(at: expirationIndex)) else {
                return .failure(APNsRequestError(.badExpirationDate, apnsID: apnsID))
            }
            values.expiration = parsed
        }
        if let collapseIndex {
            let bytes = headers.valueBytes(at: collapseIndex)
            guard bytes.count <= maximumCollapseIDBytes else {
                return .failure(APNsRequestError(.badCollapseId, apnsID: apnsID))
            }
            values.collapseID = headers.value(at: collapseIndex)
        }
        if let pushTypeIndex {
            guard let parsed = APNsPushType(bytes: headers.valueBytes(at: pushTypeIndex)) else {
                return .failure(APNsRequestError(.invalidPushType, apnsID: apnsID))
            }
            values.pushType = parsed
        }
        if let topicIndex, !headers.valueRange(at: topicIndex).isEmpty {
            if let knownTopic, headers.valueEquals(at: topicIndex, knownTopic) {
                values.topic = knownTopic
            } else {
                values.topic = headers.value(at: topicIndex)
            }
        }
        return .success(values)
    }

    /// `apns-expiration`: a non-negative decimal integer of seconds that fits in 64 bits
    /// (19 digits go beyond `Int64.max`: `9223372036854775808` is refused, not an overflow trap).
    @inlinable
    public static func parseExpiration(_ bytes: some Collection<UInt8>) -> Int64? {
        guard !bytes.isEmpty, bytes.count <= 19 else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (tens, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, carried) = tens.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflowed, !carried else { return nil }
            value = sum
        }
        return value
    }

    /// Step 8's stateless part: a push type that requires a topic suffix (`.voip`,
    /// `.push-type.liveactivity`, …) must be sent to a topic carrying it, else `TopicDisallowed`.
    ///
    /// Topics of `alert`/`background` pushes are not checked for foreign suffixes, because a
    /// bundle ID may legitimately end in `.voip`.
    public static func checkTopic(_ topic: String, pushType: APNsPushType) -> APNsReason? {
        guard pushType.bundleID(fromTopic: topic) != nil else { return .topicDisallowed }
        return nil
    }

    /// Step 10: `PayloadEmpty` for an empty body, 413 `PayloadTooLarge` above 4096 bytes (5120
    /// for VoIP).
    public static func checkPayload(byteCount: Int, pushType: APNsPushType) -> APNsReason? {
        if byteCount == 0 { return .payloadEmpty }
        if byteCount > pushType.maximumPayloadSize { return .payloadTooLarge }
        return nil
    }
}

/// A failed stateless check: the error, and the `apns-id` to echo in the response.
public struct APNsRequestError: Error, Sendable, Hashable {
    public var error: APNsError
    /// The client's `apns-id` when it was valid; the gateway generates one otherwise.
    public var apnsID: String?

    public init(_ reason: APNsReason, apnsID: String?) {
        self.error = APNsError(reason)
        self.apnsID = apnsID
    }
}
