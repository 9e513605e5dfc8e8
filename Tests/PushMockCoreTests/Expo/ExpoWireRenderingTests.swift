import PushMockCore
import PushMockJSON
import Testing

/// Request-level codes: wire value, HTTP status, isTransient.
let expectedExpoRequestCodes: [(String, Int, Bool)] = [
    ("VALIDATION_ERROR", 400, false), ("PUSH_TOO_MANY_NOTIFICATIONS", 400, false),
    ("PUSH_TOO_MANY_EXPERIENCE_IDS", 400, false), ("PUSH_TOO_MANY_RECEIPTS", 400, false),
    ("TOO_MANY_REQUESTS", 429, true), ("UNAUTHORIZED", 401, false), ("INTERNAL_SERVER_ERROR", 500, true),
]

/// Every ticket/receipt error code with the factory the gateway uses for it.
let expoDeliveryErrors: [(String, ExpoDeliveryError)] = [
    ("DeviceNotRegistered", .deviceNotRegistered("ExponentPushToken[a]")),
    ("MessageTooBig", .messageTooBig("ExponentPushToken[a]", size: 5000, limit: 4096)),
    ("MessageRateExceeded", .messageRateExceeded("ExponentPushToken[a]")),
    ("MismatchSenderId", .mismatchSenderId("ExponentPushToken[a]")),
    ("InvalidCredentials", .missingAPNsCredentials(bundleIdentifier: "com.example.app", project: "@owner/app")),
    ("InvalidCredentials", .invalidFCMCredentials(project: "@owner/app")),
    ("ProviderError", .apnsDroppedConnection(sentAt: 1_749_587_690)),
    ("DeviceNotRegistered", .invalidToken("abc")),
]

@Suite("Expo wire rendering")
struct ExpoWireRenderingTests {
    @Test("request error codes: status and isTransient", arguments: expectedExpoRequestCodes)
    func requestCode(raw: String, status: Int, transient: Bool) {
        let code = ExpoRequestErrorCode(rawValue: raw)
        #expect(code.rawValue == raw)
        #expect(code.httpStatus == status)
        #expect(code.isTransient == transient)
        let error = ExpoRequestError(code: code, message: "m")
        #expect(error.httpStatus == status)
        #expect(text(error.body()) == #"{"errors":[{"code":"\#(raw)","message":"m","isTransient":\#(transient)}]}"#)
    }

    @Test("the request code table is complete; unknown codes survive with 400")
    func requestCodeTable() {
        #expect(ExpoRequestErrorCode.allKnown.map(\.rawValue) == expectedExpoRequestCodes.map(\.0))
        let unknown = ExpoRequestErrorCode(rawValue: "API_ERROR")
        #expect(unknown.rawValue == "API_ERROR" && unknown.httpStatus == 400 && !unknown.isTransient)
    }

    @Test("every request error factory renders the documented body")
    func requestErrorBodies() {
        #expect(
            text(ExpoRequestError.tooManyNotifications(received: 115).body(requestID: "r-1"))
                == #"{"errors":[{"code":"PUSH_TOO_MANY_NOTIFICATIONS","message":"You can send a maximum of 100 notifications per request (received 115); divide your requests.","isTransient":false,"requestId":"r-1"}]}"#
        )
        #expect(
            text(ExpoRequestError.tooManyReceipts(received: 1001).body())
                == #"{"errors":[{"code":"PUSH_TOO_MANY_RECEIPTS","message":"You can request a maximum of 1000 push receipts per request (received 1001); divide your requests.","isTransient":false}]}"#
        )
        #expect(ExpoRequestError.tooManyRequests().httpStatus == 429)
        #expect(ExpoRequestError.tooManyRequests().code == .tooManyRequests)
        #expect(ExpoRequestError.unauthorized.httpStatus == 401)
        #expect(ExpoRequestError.internalServerError.httpStatus == 500)
        #expect(
            text(ExpoRequestError.validation("[0].data", "must be of type object").body())
                == #"{"errors":[{"code":"VALIDATION_ERROR","message":"[0].data must be of type object.","isTransient":false}]}"#)
        #expect(ExpoRequestError.contentType == "application/json; charset=utf-8")
        for error in [ExpoRequestError.tooManyRequests(), .unauthorized, .internalServerError, .malformedJSON] {
            #expect((try? JSONValue(parsing: error.body(requestID: "x"))) != nil)
        }
    }

    @Test("ticket and receipt error codes: the table is complete and unknown codes survive")
    func deliveryCodeTable() {
        #expect(
            ExpoErrorCode.allKnown.map(\.rawValue) == [
                "DeviceNotRegistered", "MessageTooBig", "MessageRateExceeded", "MismatchSenderId", "InvalidCredentials",
                "DeveloperError", "ExpoError", "ProviderError",
            ])
        #expect(ExpoErrorCode.allKnown.allSatisfy { $0.isKnown })
        #expect(!ExpoErrorCode(rawValue: "Brand-new").isKnown)
        #expect(ExpoErrorCode(rawValue: "Brand-new").rawValue == "Brand-new")
    }

    @Test("every ticket error renders status, message and details", arguments: expoDeliveryErrors)
    func errorTicket(code: String, error: ExpoDeliveryError) throws {
        #expect(error.code.rawValue == code)
        let body = ExpoTicketResponse(tickets: [.error(error)]).body
        let value = try JSONValue(parsing: body)
        let ticket = try #require(value["data"]?[0])
        #expect(ticket["status"] == .string("error"))
        #expect(ticket["id"] == nil)
        #expect(ticket["message"]?.stringValue == error.message)
        #expect(ticket["details"]?["error"] == .string(code))
        #expect(ticket["details"]?["expoPushToken"]?.stringValue == error.expoPushToken)
        // The same error as a receipt.
        let receipts = ExpoReceiptsResponse(receipts: [(ExpoReceiptID("r"), .error(error))]).body
        #expect(try JSONValue(parsing: receipts)["data"]?["r"] == ticket)
    }

    @Test("tickets render exactly like the docs' examples")
    func ticketBodies() {
        let ok = ExpoTicketResponse(tickets: [
            .ok(ExpoReceiptID("XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX")),
            .error(.deviceNotRegistered("ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]")),
        ])
        #expect(
            text(ok.body)
                == #"{"data":[{"status":"ok","id":"XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX"},{"status":"error","message":"\"ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]\" is not a registered push notification recipient","details":{"error":"DeviceNotRegistered","expoPushToken":"ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"}}]}"#
        )
        let single = ExpoTicketResponse(tickets: [.ok(ExpoReceiptID("a"))], shape: .single)
        #expect(text(single.body) == #"{"data":{"status":"ok","id":"a"}}"#)
        #expect(text(ExpoTicketResponse(tickets: []).body) == #"{"data":[]}"#)
    }

    @Test("receipts render as a map; missing ids are left out")
    func receiptBodies() {
        let response = ExpoReceiptsResponse(receipts: [
            (ExpoReceiptID("XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX"), .ok),
            (ExpoReceiptID("ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ"), .error(.apnsDroppedConnection(sentAt: 1_749_587_690))),
        ])
        #expect(
            text(response.body)
                == #"{"data":{"XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX":{"status":"ok"},"ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ":{"status":"error","message":"The Apple Push Notification service unexpectedly dropped the connection. Retry sending the notification later. If this error recurs very frequently, there is likely an issue with your Apple push notification credentials.","details":{"error":"ProviderError","sentAt":1749587690}}}}"#
        )
        #expect(text(ExpoReceiptsResponse(receipts: []).body) == #"{"data":{}}"#)
    }

    @Test("receipt ids are lower-case UUIDs")
    func receiptIDs() {
        var random = FastRandom(seed: 1)
        let id = ExpoReceiptID.random(using: &random)
        #expect(id.rawValue.count == 36)
        #expect(id.rawValue == id.rawValue.lowercased())
        #expect(ExpoReceiptID.random(using: &random) != id)
    }

    @Test("1000 receipt ids pass, 1001 are refused", arguments: [(1000, true), (1001, false), (0, true)])
    func receiptLimit(count: Int, accepted: Bool) {
        let json = #"{"ids":["# + (0..<count).map { "\"id-\($0)\"" }.joined(separator: ",") + "]}"
        let result = Result { () throws(ExpoRequestError) in try ExpoReceiptsRequestParser.parse(body: Array(json.utf8)) }
        switch result {
        case .success(let ids):
            #expect(accepted)
            #expect(ids.count == count)
            #expect(ids.first.map(\.rawValue) == (count > 0 ? "id-0" : nil))
        case .failure(let error):
            #expect(!accepted)
            #expect(error.code == .pushTooManyReceipts)
            #expect(error.httpStatus == 400)
        }
    }

    @Test(
        "receipt request shape errors",
        arguments: [
            ("", "The request body must be valid JSON."), ("[]", "value must be of type object."),
            ("{}", "ids is required."), (#"{"ids":"a"}"#, "ids must be an array."),
            (#"{"ids":["a",1]}"#, "ids[1] must be a string."),
        ]
    )
    func receiptRequestErrors(json: String, expected: String) {
        let result = Result { () throws(ExpoRequestError) in try ExpoReceiptsRequestParser.parse(body: Array(json.utf8)) }
        guard case .failure(let error) = result else {
            Issue.record("accepted \(json)")
            return
        }
        #expect(error.code == .validationError)
        #expect(error.message == expected)
    }
}
