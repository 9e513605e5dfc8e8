import Foundation
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockToolkit

/// Builds records the way the gateway does, with everything volatile (tokens, ids, times,
/// message names) drawn from `random`, so two runs with different seeds differ only in noise.
struct RecordFactory {
    var random: SplitMix
    /// Receive time of the first record; later records are a few seconds apart.
    var time: Int64
    var sequence: UInt64 = 0

    init(seed: UInt64) {
        random = SplitMix(seed: seed)
        time = 1_795_304_400_000 + Int64(seed % 100_000) * 7_919
    }

    mutating func hex(_ count: Int) -> String {
        (0..<count).map { _ in String(random.next() % 16, radix: 16) }.joined()
    }

    mutating func uuid() -> String {
        let digits = hex(32).uppercased()
        let parts = [8, 4, 4, 4, 12]
        var index = digits.startIndex
        return parts.map { length in
            let end = digits.index(index, offsetBy: length)
            defer { index = end }
            return String(digits[index..<end])
        }.joined(separator: "-")
    }

    mutating func apnsToken() -> String { hex(64) }

    mutating func fcmToken() -> String {
        hex(22) + ":APA91b" + hex(134)
    }

    /// An accepted APNs alert, received `jitterMilliseconds` after the client computed its
    /// expiration as "now + expiresIn".
    mutating func apns(
        token: String,
        title: String = "Time for your dose",
        body: String = "Take 250 mcg now",
        expiresIn: Int64? = 3600,
        jitterMilliseconds: Int64 = 0,
        clientAPNsID: String? = nil,
        collapseID: String? = nil,
        status: Int = 200,
        reason: String? = nil,
        goneSince: Int64? = nil,
        reversedPayloadMembers: Bool = false,
        extraPayload: [(String, JSONValue)] = []
    ) -> ExchangeRecord {
        sequence += 1
        time += 2_000 + Int64(random.next() % 1_000)
        let received = time
        let clientNowSeconds = (received - jitterMilliseconds) / 1000

        var headers: HTTPHeaderList = [
            HeaderField("apns-topic", "com.example.app"),
            HeaderField("apns-push-type", "alert"),
            HeaderField("apns-priority", "10"),
            HeaderField("authorization", "bearer [JWT kid=ABC123DEFG iss=DEF123GHIJ; decoded in auth, signature withheld]"),
            HeaderField("user-agent", "MyApp/\(random.next() % 100)"),
        ]
        if let expiresIn { headers.append(name: "apns-expiration", value: String(clientNowSeconds + expiresIn)) }
        if let clientAPNsID { headers.append(name: "apns-id", value: clientAPNsID) }
        if let collapseID { headers.append(name: "apns-collapse-id", value: collapseID) }

        var aps: JSONValue = ["alert": ["title": .string(title), "body": .string(body)], "sound": "default"]
        var payloadMembers: [JSONObject.Member] = [(key: "aps", value: aps), (key: "dose_id", value: "d-42")]
        payloadMembers += extraPayload.map { (key: $0.0, value: $0.1) }
        if reversedPayloadMembers {
            payloadMembers.reverse()
            if case .object(let object) = aps { aps = .object(JSONObject(object.members.reversed())) }
            payloadMembers = payloadMembers.map { $0.key == "aps" ? (key: "aps", value: aps) : $0 }
        }
        let payload = JSONValue.object(JSONObject(payloadMembers))

        let apnsID = clientAPNsID ?? uuid()
        var responseHeaders: HTTPHeaderList = [HeaderField("apns-id", apnsID), HeaderField("apns-unique-id", uuid())]
        var responseBody = RecordedBody.none
        if let reason {
            responseHeaders = [HeaderField("apns-id", apnsID)]
            let timestamp = goneSince.map { #","timestamp":\#($0)"# } ?? ""
            responseBody = .json(Array(#"{"reason":"\#(reason)"\#(timestamp)}"#.utf8))
        }
        return ExchangeRecord(
            sequence: sequence,
            timeMilliseconds: received,
            namespace: "ns-\(random.next() % 1000)",
            platform: .apns,
            connection: ConnectionInfo(
                id: random.next() % 1000, transport: "h2", tls: true, alpn: "h2", remoteAddress: "127.0.0.1:\(random.next() % 60000)"),
            streamID: Int32(random.next() % 1000) * 2 + 1,
            environment: "sandbox",
            request: RequestInfo(
                method: "POST",
                path: "/3/device/" + token,
                authority: "localhost:2197",
                scheme: "https",
                headers: headers,
                body: .json(payload.compactBytes),
                bodySize: payload.compactBytes.count
            ),
            auth: AuthInfo(
                scheme: "bearer-jwt",
                jwtHeader: Array(#"{"alg":"ES256","kid":"ABC123DEFG"}"#.utf8),
                jwtClaims: Array(#"{"iss":"DEF123GHIJ","iat":\#(received / 1000 - Int64(random.next() % 600))}"#.utf8),
                keyID: "ABC123DEFG",
                teamID: "DEF123GHIJ",
                detail: random.next() % 2 == 0 ? "new provider token on this connection" : nil
            ),
            notification: NotificationInfo(
                token: token, topic: "com.example.app", pushType: "alert", priority: 10,
                expiration: expiresIn.map { clientNowSeconds + $0 }, collapseID: collapseID, messageID: apnsID,
                lint: [LintNote(code: "apns.example", severity: "info", field: "aps", message: "m", source: "s")]
            ),
            response: ResponseInfo(
                status: status,
                reason: reason,
                headers: responseHeaders,
                body: responseBody,
                timestampMilliseconds: goneSince
            ),
            latencyMicroseconds: Int64(random.next() % 500),
            annotations: ["fault": "none"]
        )
    }

    /// An accepted FCM HTTP v1 send to a registration token.
    mutating func fcm(token: String, title: String = "Time for your dose", project: String = "demo-project") -> ExchangeRecord {
        sequence += 1
        time += 2_000 + Int64(random.next() % 1_000)
        let received = time
        let fingerprint = hex(8)
        let name = "projects/\(project)/messages/0:\(received * 1000 + Int64(random.next() % 1000))%\(fingerprint)\(fingerprint)"
        let body: JSONValue = [
            "message": [
                "token": .string(token),
                "notification": ["title": .string(title)],
                "apns": ["headers": ["apns-expiration": .string(String(received / 1000 + 86_400)), "apns-priority": "10"]],
                "data": ["session": .string("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx\(hex(6))In0.c2lnbmF0dXJl")],
            ]
        ]
        return ExchangeRecord(
            sequence: sequence,
            timeMilliseconds: received,
            platform: .fcm,
            connection: ConnectionInfo(id: random.next() % 1000, transport: "h2", tls: true),
            streamID: 1,
            request: RequestInfo(
                method: "POST",
                path: "/v1/projects/\(project)/messages:send",
                headers: [
                    HeaderField("content-type", "application/json"),
                    HeaderField(
                        "authorization", "Bearer [access token …\(fingerprint) of sender@\(project).iam.gserviceaccount.com; withheld]"),
                ],
                body: .json(body.compactBytes),
                bodySize: body.compactBytes.count
            ),
            auth: AuthInfo(
                scheme: "bearer",
                subject: "sender@\(project).iam.gserviceaccount.com",
                detail: "project \(project); scopes https://www.googleapis.com/auth/firebase.messaging; token …\(fingerprint)"
            ),
            notification: NotificationInfo(token: token, messageID: name, project: project, resolvedTokens: [token]),
            response: ResponseInfo(
                status: 200,
                headers: [HeaderField("content-type", "application/json; charset=UTF-8")],
                body: .json(Array(#"{"name":"\#(name)"}"#.utf8))
            ),
            latencyMicroseconds: 120
        )
    }

    /// An OAuth token request (not a notification).
    mutating func oauth() -> ExchangeRecord {
        sequence += 1
        time += 500
        return ExchangeRecord(
            sequence: sequence,
            timeMilliseconds: time,
            platform: .oauth,
            request: RequestInfo(method: "POST", path: "/token", body: .text("grant_type=…")),
            response: ResponseInfo(status: 200)
        )
    }

    /// A small scenario: two APNs alerts to one device, one to another, an FCM send, an
    /// OAuth request in between, and an APNs 410.
    mutating func scenario(title: String = "Time for your dose") -> [ExchangeRecord] {
        let phone = apnsToken()
        let tablet = apnsToken()
        let android = fcmToken()
        return [
            apns(token: phone, title: "Welcome"),
            oauth(),
            apns(token: tablet, title: title, jitterMilliseconds: Int64(random.next() % 900)),
            apns(token: phone, title: "Reminder", reversedPayloadMembers: true),
            fcm(token: android, title: title),
            apns(token: tablet, title: "Bye", status: 410, reason: "Unregistered", goneSince: time - 86_400_000),
        ]
    }
}

/// A unique scratch directory, removed by `cleanup()`.
struct ScratchDirectory {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.path + "/pushmock-golden-tests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func cleanup() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Every file name in the directory, hidden ones included.
    var fileNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}

extension GoldenEnvironment {
    /// No variables at all: compare only, not CI.
    static let empty = GoldenEnvironment([:])
}
