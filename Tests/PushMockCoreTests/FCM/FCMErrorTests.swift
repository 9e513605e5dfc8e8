import PushMockCore
import PushMockJSON
import Testing

/// `google/rpc/code.proto`: name, number, HTTP mapping.
let expectedGoogleCodes: [(String, Int, Int)] = [
    ("OK", 0, 200), ("CANCELLED", 1, 499), ("UNKNOWN", 2, 500), ("INVALID_ARGUMENT", 3, 400),
    ("DEADLINE_EXCEEDED", 4, 504), ("NOT_FOUND", 5, 404), ("ALREADY_EXISTS", 6, 409),
    ("PERMISSION_DENIED", 7, 403), ("RESOURCE_EXHAUSTED", 8, 429), ("FAILED_PRECONDITION", 9, 400),
    ("ABORTED", 10, 409), ("OUT_OF_RANGE", 11, 400), ("UNIMPLEMENTED", 12, 501), ("INTERNAL", 13, 500),
    ("UNAVAILABLE", 14, 503), ("DATA_LOSS", 15, 500), ("UNAUTHENTICATED", 16, 401),
]

/// Firebase's ErrorCode table (wire reference B4.1): HTTP status and usual canonical pairing.
let expectedFCMErrorCodes: [(String, Int?, String?)] = [
    ("UNSPECIFIED_ERROR", nil, nil), ("INVALID_ARGUMENT", 400, "INVALID_ARGUMENT"),
    ("UNREGISTERED", 404, "NOT_FOUND"), ("SENDER_ID_MISMATCH", 403, "PERMISSION_DENIED"),
    ("QUOTA_EXCEEDED", 429, "RESOURCE_EXHAUSTED"), ("UNAVAILABLE", 503, "UNAVAILABLE"),
    ("INTERNAL", 500, "INTERNAL"), ("THIRD_PARTY_AUTH_ERROR", 401, "UNAUTHENTICATED"),
    ("APNS_AUTH_ERROR", 401, "UNAUTHENTICATED"),
]

@Suite("FCM error model")
struct FCMErrorTests {
    @Test("canonical codes: name, number, HTTP status", arguments: expectedGoogleCodes)
    func googleCode(name: String, number: Int, status: Int) {
        let code = GoogleRPCCode(rawValue: name)
        #expect(code.isKnown)
        #expect(code.rawValue == name)
        #expect(code.name == name)
        #expect(code.number == number)
        #expect(code.httpStatus == status)
        #expect(GoogleRPCCode(number: number) == code)
    }

    @Test("canonical code table is complete and unknown names survive")
    func googleCodeTable() {
        #expect(GoogleRPCCode.all.map(\.rawValue) == expectedGoogleCodes.map(\.0))
        let unknown = GoogleRPCCode(rawValue: "SOMETHING_NEW")
        #expect(!unknown.isKnown)
        #expect(unknown.rawValue == "SOMETHING_NEW")
        #expect(unknown.httpStatus == 500)
        #expect(unknown.number == nil)
        #expect(GoogleRPCCode(number: 17) == nil)
        #expect(GoogleRPCCode(number: -1) == nil)
    }

    @Test("FcmError codes: HTTP status and canonical pairing", arguments: expectedFCMErrorCodes)
    func fcmErrorCode(name: String, status: Int?, canonical: String?) {
        let code = FCMErrorCode(rawValue: name)
        #expect(code.isKnown)
        #expect(code.rawValue == name)
        #expect(code.httpStatus == status)
        #expect(code.canonicalCode?.rawValue == canonical)
        if let status, let canonical {
            #expect(GoogleRPCCode(rawValue: canonical).httpStatus == status)
        }
        #expect(code.isDeprecated == (name == "APNS_AUTH_ERROR"))
    }

    @Test("FcmError table is complete and unknown codes survive")
    func fcmErrorCodeTable() {
        #expect(FCMErrorCode.all.map(\.rawValue) == expectedFCMErrorCodes.map(\.0))
        let unknown = FCMErrorCode(rawValue: "NEW_CODE")
        #expect(!unknown.isKnown)
        #expect(unknown.rawValue == "NEW_CODE")
        #expect(unknown.httpStatus == nil)
        #expect(unknown.canonicalCode == nil)
        #expect(FCMError(status: .invalidArgument, message: "x", details: [.fcmError(unknown)]).fcmErrorCode == unknown)
    }

    // MARK: Table C3, row by row

    @Test("404 UNREGISTERED")
    func unregistered() {
        let error = FCMError.unregistered()
        FCMTest.expectBody(
            error,
            FCMTest.json(
                #"{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}"#
            )
        )
        // The example body of the brief, byte for byte.
        #expect(
            String(decoding: error.body(), as: UTF8.self)
                == #"{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}"#
        )
        #expect(error.retryAfter == nil)
        #expect(error.wwwAuthenticate == nil)
        #expect(error.fcmErrorCode == .unregistered)
    }

    @Test("400 invalid registration token, with its field violation")
    func invalidRegistrationToken() {
        FCMTest.expectBody(
            .invalidRegistrationToken(),
            FCMTest.json(
                #"{"error":{"code":400,"message":"The registration token is not a valid FCM registration token","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"},{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.token","description":"The registration token is not a valid FCM registration token"}]}]}}"#
            )
        )
        #expect(FCMError.invalidRegistrationToken(field: "message.fid").fieldViolations.map(\.field) == ["message.fid"])
    }

    @Test("403 SENDER_ID_MISMATCH")
    func senderIDMismatch() {
        FCMTest.expectBody(
            .senderIDMismatch(),
            FCMTest.json(
                #"{"error":{"code":403,"message":"SenderId mismatch","status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"SENDER_ID_MISMATCH"}]}}"#
            )
        )
    }

    @Test("401 missing credential, with the WWW-Authenticate challenge")
    func missingCredential() {
        let error = FCMError.missingCredential()
        FCMTest.expectBody(
            error,
            FCMTest.json(
                #"{"error":{"code":401,"message":"Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.","status":"UNAUTHENTICATED"}}"#
            )
        )
        #expect(error.wwwAuthenticate == #"Bearer realm="https://accounts.google.com/""#)
        #expect(error.fcmErrorCode == nil)
        FCMTest.expectBody(
            .missingCredential(errorInfo: true),
            FCMTest.json(
                #"{"error":{"code":401,"message":"Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.","status":"UNAUTHENTICATED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"CREDENTIALS_MISSING","domain":"googleapis.com","metadata":{"method":"google.firebase.fcm.v1.FcmService.SendMessage","service":"fcm.googleapis.com"}}]}}"#
            )
        )
    }

    @Test("401 invalid credential, with error=\"invalid_token\"")
    func invalidCredential() {
        let error = FCMError.invalidCredential()
        FCMTest.expectBody(
            error,
            FCMTest.json(
                #"{"error":{"code":401,"message":"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.","status":"UNAUTHENTICATED"}}"#
            )
        )
        #expect(error.wwwAuthenticate == #"Bearer realm="https://accounts.google.com/", error="invalid_token""#)
        FCMTest.expectBody(
            .invalidCredential(expired: true),
            FCMTest.json(
                #"{"error":{"code":401,"message":"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.","status":"UNAUTHENTICATED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"ACCESS_TOKEN_EXPIRED","domain":"googleapis.com","metadata":{"method":"google.firebase.fcm.v1.FcmService.SendMessage","service":"fcm.googleapis.com"}}]}}"#
            )
        )
    }

    @Test("403 permission denied and API disabled")
    func permissionDenied() {
        FCMTest.expectBody(
            .permissionDenied(project: "demo-project"),
            FCMTest.json(
                #"{"error":{"code":403,"message":"Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/demo-project' (or it may not exist).","status":"PERMISSION_DENIED"}}"#
            )
        )
        FCMTest.expectBody(
            .apiDisabled(project: "1234"),
            FCMTest.json(
                #"{"error":{"code":403,"message":"Firebase Cloud Messaging API has not been used in project 1234 before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/fcm.googleapis.com/overview?project=1234 then retry. If you enabled this API recently, wait a few minutes for the action to propagate to our systems and retry.","status":"PERMISSION_DENIED"}}"#
            )
        )
    }

    @Test(
        "429 QUOTA_EXCEEDED for each kind",
        arguments: [
            (
                FCMQuotaKind.messageRate, "Project quota exceeded.",
                "Message rate exceeded: the rate of messages sent by the project is too high."
            ),
            (
                FCMQuotaKind.deviceMessageRate, "Device quota exceeded.",
                "Device message rate exceeded: the rate of messages to a particular device is too high."
            ),
            (
                FCMQuotaKind.topicMessageRate, "Topic quota exceeded.",
                "Topic message rate exceeded: the rate of messages to subscribers of a particular topic is too high."
            ),
        ]
    )
    func quotaExceeded(kind: FCMQuotaKind, message: String, violation: String) {
        let error = FCMError.quotaExceeded(kind: kind, retryAfter: 60)
        FCMTest.expectBody(
            error,
            FCMTest.errorBody(
                code: 429,
                status: "RESOURCE_EXHAUSTED",
                message: message,
                details: [
                    FCMTest.fcmError("QUOTA_EXCEEDED"),
                    [
                        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                        "violations": [["description": .string(violation)]],
                    ],
                ]
            )
        )
        #expect(error.retryAfter == 60)
        #expect(FCMQuotaKind(rawValue: kind.rawValue) == kind)
        let withSubject = FCMError.quotaExceeded(kind: kind, subject: "topics/news")
        #expect(withSubject.retryAfter == nil)
        #expect(
            withSubject.bodyValue["error"]?["details"]?[1]?["violations"]?[0]
                == ["subject": "topics/news", "description": .string(violation)]
        )
    }

    @Test("503 UNAVAILABLE and 500 INTERNAL, optionally with Retry-After")
    func serverErrors() {
        FCMTest.expectBody(
            .unavailable(),
            FCMTest.json(
                #"{"error":{"code":503,"message":"The service is currently unavailable.","status":"UNAVAILABLE","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNAVAILABLE"}]}}"#
            )
        )
        #expect(FCMError.unavailable(retryAfter: 30).retryAfter == 30)
        FCMTest.expectBody(
            .internal(),
            FCMTest.json(
                #"{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INTERNAL"}]}}"#
            )
        )
        #expect(FCMError.internal(retryAfter: 5).retryAfter == 5)
    }

    @Test("401 THIRD_PARTY_AUTH_ERROR with and without the relayed ApnsError")
    func thirdPartyAuthError() {
        FCMTest.expectBody(
            .thirdPartyAuthError(apnsStatus: 403, apnsReason: "BadEnvironmentKeyInToken"),
            FCMTest.json(
                #"{"error":{"code":401,"message":"Auth error from APNS or Web Push Service","status":"UNAUTHENTICATED","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"THIRD_PARTY_AUTH_ERROR"},{"@type":"type.googleapis.com/google.firebase.fcm.v1.ApnsError","statusCode":403,"reason":"BadEnvironmentKeyInToken"}]}}"#
            )
        )
        FCMTest.expectBody(
            .thirdPartyAuthError(apnsStatus: nil),
            FCMTest.json(
                #"{"error":{"code":401,"message":"Auth error from APNS or Web Push Service","status":"UNAUTHENTICATED","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"THIRD_PARTY_AUTH_ERROR"}]}}"#
            )
        )
    }

    @Test("APNs device token disabled: 400 by default, 404 UNREGISTERED on request")
    func apnsTokenDisabled() {
        FCMTest.expectBody(
            .apnsTokenDisabled(),
            FCMTest.json(
                #"{"error":{"code":400,"message":"APNs device token is disabled.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"},{"@type":"type.googleapis.com/google.firebase.fcm.v1.ApnsError","statusCode":410,"reason":"Unregistered"}]}}"#
            )
        )
        FCMTest.expectBody(
            .apnsTokenDisabled(apnsReason: "ExpiredToken", asUnregistered: true),
            FCMTest.json(
                #"{"error":{"code":404,"message":"APNs device token is disabled.","status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"},{"@type":"type.googleapis.com/google.firebase.fcm.v1.ApnsError","statusCode":410,"reason":"ExpiredToken"}]}}"#
            )
        )
    }

    @Test("generic INVALID_ARGUMENT")
    func invalidArgument() {
        FCMTest.expectBody(
            .invalidArgument(),
            FCMTest.json(
                #"{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"}]}}"#
            )
        )
        FCMTest.expectBody(
            .invalidArgument(violations: [FCMError.FieldViolation(field: "message.android.ttl", description: "bad")]),
            FCMTest.json(
                #"{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"},{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.android.ttl","description":"bad"}]}]}}"#
            )
        )
    }

    @Test("INVALID_ARGUMENT relaying an APNs rejection")
    func invalidArgumentWithApnsError() {
        FCMTest.expectBody(
            .invalidArgument(apnsError: (400, "BadDeviceToken")),
            FCMTest.json(
                #"{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"},{"@type":"type.googleapis.com/google.firebase.fcm.v1.ApnsError","statusCode":400,"reason":"BadDeviceToken"}]}}"#
            )
        )
    }

    @Test("404 for an unknown path")
    func notFound() {
        FCMTest.expectBody(
            .notFound(path: "/v1/projects/p/messages:sned"),
            FCMTest.json(
                #"{"error":{"code":404,"message":"The requested URL /v1/projects/p/messages:sned was not found on this server.","status":"NOT_FOUND"}}"#
            )
        )
    }

    @Test("recipient not set and message too big keep their captured detail order")
    func validationErrors() {
        FCMTest.expectBody(
            .recipientNotSet(),
            FCMTest.json(
                #"{"error":{"code":400,"message":"Recipient of the message is not set.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message","description":"Recipient of the message is not set."}]},{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"}]}}"#
            )
        )
        FCMTest.expectBody(
            .messageTooBig(toTopic: false),
            FCMTest.json(
                #"{"error":{"code":400,"message":"Android message is too big","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest"},{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"}]}}"#
            )
        )
    }

    @Test("empty details and empty optional strings are omitted; escaping is JSON's")
    func rendering() {
        let error = FCMError(
            status: .invalidArgument,
            message: "quote \" backslash \\ newline \n tab \t",
            details: [
                .badRequest([FCMError.FieldViolation(field: "", description: "no field")]),
                .apnsError(statusCode: 410, reason: ""),
            ]
        )
        FCMTest.expectBody(
            error,
            FCMTest.errorBody(
                code: 400,
                status: "INVALID_ARGUMENT",
                message: "quote \" backslash \\ newline \n tab \t",
                details: [
                    ["@type": .string(FCMTest.badRequestType), "fieldViolations": [["description": "no field"]]],
                    ["@type": "type.googleapis.com/google.firebase.fcm.v1.ApnsError", "statusCode": 410],
                ]
            )
        )
        #expect(FCMError(status: .internal, message: "x").bodyValue["error"]?["details"] == nil)
        #expect(FCMError(httpStatus: 418, status: .unknown, message: "x").httpStatus == 418)
        #expect(FCMError(status: .unknown, message: "x").httpStatus == 500)
    }

    @Test("pretty printing reproduces Google's layout")
    func prettyPrinted() {
        let text = String(decoding: FCMError.unregistered().body(prettyPrinted: true), as: UTF8.self)
        #expect(
            text == """
                {
                  "error": {
                    "code": 404,
                    "message": "Requested entity was not found.",
                    "status": "NOT_FOUND",
                    "details": [
                      {
                        "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                        "errorCode": "UNREGISTERED"
                      }
                    ]
                  }
                }

                """
        )
        let tricky = FCMError(
            status: .invalidArgument,
            message: "braces { [ , : ] } and \"quotes\\\"",
            details: [.badRequest([])]
        )
        let pretty = tricky.body(prettyPrinted: true)
        #expect((try? JSONValue(parsing: pretty)) == tricky.bodyValue)
        #expect(
            String(decoding: pretty, as: UTF8.self) == """
                {
                  "error": {
                    "code": 400,
                    "message": "braces { [ , : ] } and \\"quotes\\\\\\"",
                    "status": "INVALID_ARGUMENT",
                    "details": [
                      {
                        "@type": "type.googleapis.com/google.rpc.BadRequest"
                      }
                    ]
                  }
                }

                """
        )
    }
}
