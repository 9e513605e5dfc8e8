import PushMockCore
import PushMockJSON

/// What both Expo endpoints share: reading a possibly compressed body and writing answers
/// (gzip-compressed when the client allows it, as the real service does).
struct ExpoHTTP {
    let options: ExpoOptions

    /// The request body decoded from its `Content-Encoding`, or the error the API gives for it.
    /// Over the transport's storage cap: 413 (UNVERIFIED code and text).
    func decodedBody(of request: HTTPRequestMessage) -> Result<(body: [UInt8], coding: HTTPContentCoding), ExpoRequestError> {
        if request.isBodyTruncated { return .failure(Self.payloadTooLarge) }
        let header = request.headers.values(named: "content-encoding").last ?? ""
        guard let coding = HTTPContentCoding(headerValue: header) else {
            return .failure(ExpoRequestError.validation("content-encoding", "must be one of [gzip, deflate, identity]"))
        }
        do {
            return .success((try coding.decode(request.body, limit: options.maximumDecodedBodyBytes), coding))
        } catch .tooLarge {
            return .failure(Self.payloadTooLarge)
        } catch {
            return .failure(
                ExpoRequestError(code: .validationError, message: "The request body could not be decoded as \(coding) content.")
            )
        }
    }

    /// The parse step of both endpoints: the method, then the body decoded from its
    /// `Content-Encoding` (the request keeps the decoded bytes, which the recording shows, and
    /// `coding` the coding it came in), then `parseBody` on it.
    func parse<Parsed>(
        _ request: inout HTTPRequestMessage,
        coding: inout HTTPContentCoding,
        _ parseBody: ([UInt8]) throws(ExpoRequestError) -> Parsed
    ) -> Result<Parsed, ExpoRequestError> {
        guard request.method == "POST" else { return .failure(Self.notFound) }
        switch decodedBody(of: request) {
        case .failure(let error):
            return .failure(error)
        case .success(let (body, bodyCoding)):
            coding = bodyCoding
            request.body = body
            request.bodyByteCount = body.count
            do throws(ExpoRequestError) {
                return .success(try parseBody(body))
            } catch {
                return .failure(error)
            }
        }
    }

    /// The request error an injected `expo-error` with a request code answers with.
    func injectedRequestError(code: String, message: String?, status: Int?) -> ExpoRequestError {
        ExpoRequestError.injected(code: code, message: message, status: status, limitPerSecond: options.notificationsPerSecondPerProject)
    }

    /// A request that a check refused before the body was read (method, path).
    static let notFound = ExpoRequestError(code: ExpoRequestErrorCode(rawValue: "NOT_FOUND"), message: "Not found.", httpStatus: 404)

    /// Body over the limit (wording ours: UNVERIFIED).
    static let payloadTooLarge = ExpoRequestError(
        code: ExpoRequestErrorCode(rawValue: "PAYLOAD_TOO_LARGE"),
        message: "The request body is too large.",
        httpStatus: 413
    )

    /// An answer with `body` (uncompressed JSON), gzip-compressed when the request allows it.
    func reply(status: Int, body: [UInt8], to request: HTTPRequestMessage, retryAfter: Int? = nil) -> HTTPReply {
        var headers = HTTPHeaderList()
        headers.append(name: "content-type", value: ExpoRequestError.contentType)
        var bytes = body
        if options.compressesResponses,
            request.headers.values(named: "accept-encoding").contains(where: HTTPContentCoding.acceptsGzip)
        {
            bytes = HTTPContentCoding.gzipCompress(body)
            headers.append(name: "content-encoding", value: "gzip")
        }
        headers.append(name: "vary", value: "Accept-Encoding")
        if let retryAfter {
            headers.append(name: "retry-after", value: String(retryAfter))
        }
        return .respond(HTTPResponseMessage(status: status, headers: headers, body: bytes))
    }

    /// The bearer token of `Authorization: Bearer …`, if any.
    static func bearerToken(in request: HTTPRequestMessage) -> String? {
        guard let value = request.headers.values(named: "authorization").first else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingCharacters(in: " ")
    }
}

extension String {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var text = Substring(self)
        while text.first == character { text.removeFirst() }
        while text.last == character { text.removeLast() }
        return String(text)
    }
}

extension ExpoRequestError {
    /// The request error an `expo-error` fault names, with the known codes' texts.
    static func injected(code: String, message: String?, status: Int?, limitPerSecond: Int) -> ExpoRequestError {
        var error: ExpoRequestError
        switch code.uppercased() {
        case "TOO_MANY_REQUESTS": error = .tooManyRequests(limitPerSecond: limitPerSecond)
        case "UNAUTHORIZED": error = .unauthorized
        case "INTERNAL_SERVER_ERROR": error = .internalServerError
        case "PUSH_TOO_MANY_NOTIFICATIONS": error = .tooManyNotifications(received: 101)
        case "PUSH_TOO_MANY_EXPERIENCE_IDS": error = .tooManyExperienceIDs([])
        case "PUSH_TOO_MANY_RECEIPTS": error = .tooManyReceipts(received: 1001)
        default:
            error = ExpoRequestError(code: ExpoRequestErrorCode(rawValue: code), message: "Injected \(code) error.")
        }
        if let message { error.message = message }
        if let status { error.httpStatus = status }
        return error
    }
}

extension ExpoDeliveryError {
    /// The ticket or receipt error named by `code`, with the known codes' texts.
    static func named(
        _ code: ExpoErrorCode,
        token: String,
        message: String?,
        platform: ExpoTokenRecord.Platform,
        project: String?,
        bundleIdentifier: String?,
        sentAt: Int64?,
        payloadSize: Int = 0,
        payloadLimit: Int = 4096
    ) -> ExpoDeliveryError {
        var error: ExpoDeliveryError
        switch code {
        case .deviceNotRegistered: error = .deviceNotRegistered(token)
        case .messageTooBig: error = .messageTooBig(token, size: payloadSize, limit: payloadLimit)
        case .messageRateExceeded: error = .messageRateExceeded(token)
        case .mismatchSenderId: error = .mismatchSenderId(token)
        case .invalidCredentials:
            switch platform {
            case .ios:
                error = .missingAPNsCredentials(
                    bundleIdentifier: bundleIdentifier ?? "com.example.app",
                    project: project ?? "@owner/app"
                )
            case .android:
                error = .invalidFCMCredentials(project: project ?? "@owner/app")
            }
        case .providerError: error = .apnsDroppedConnection(sentAt: sentAt)
        default:
            error = ExpoDeliveryError(code: code, message: "\(code.rawValue) for \"\(token)\".", expoPushToken: token)
        }
        if let message { error.message = message }
        return error
    }
}
