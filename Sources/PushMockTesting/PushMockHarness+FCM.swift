import Foundation
public import PushMockAuth
public import PushMockCore
public import PushMockGateway
import PushMockJSON
public import PushMockTransport

extension PushMockHarness {
    /// The sample service account the gateway trusts (its `token_uri` points at the gateway).
    public var serviceAccount: SampleServiceAccount { server.sampleFCMServiceAccount! }

    /// The sample service account's project.
    public var project: String { serviceAccount.json.projectID }

    /// A registration token in the shape FCM issues (`<instance id>:APA91b…`).
    public static let sampleRegistrationToken =
        "dQw4w9WgXcQ:APA91bHqL2f0pM7v8Jk3nR5sT9uW1xY4zA6bC8dE0fG2hI4jK6lM8nO0pQ2rS4tU6vW8xY0zA2bC4dE6fG8hI0jK2lM4nO6pQ8rS0tU2vW4xY6zA8bC0dE2fG4hI6jK8lM0nO2"

    /// A JWT-bearer assertion signed with the sample account's key (or `key`).
    public func assertion(
        key: ServiceAccountKey? = nil,
        clientEmail: String? = nil,
        scopes: [String] = ["https://www.googleapis.com/auth/cloud-platform"],
        audience: String = "https://oauth2.googleapis.com/token",
        issuedAt: Timestamp? = nil,
        lifetime: Int64 = 3600
    ) throws -> String {
        try (key ?? serviceAccount.key).makeTokenRequestAssertion(
            clientEmail: clientEmail ?? serviceAccount.json.clientEmail,
            scopes: scopes,
            tokenURI: audience,
            issuedAt: (issuedAt ?? state.clock.now()).secondsSince1970,
            lifetime: lifetime
        )
    }

    /// `POST /token` with a form-encoded JWT-bearer grant.
    public func tokenRequest(assertion: String, grantType: String = "urn:ietf:params:oauth:grant-type:jwt-bearer", path: String = "/token")
        -> HTTPRequestMessage
    {
        var headers = HTTPHeaderList()
        headers.append(.contentType, value: "application/x-www-form-urlencoded")
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let body =
            "grant_type=\(grantType.addingPercentEncoding(withAllowedCharacters: allowed)!)&assertion=\(assertion.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        return HTTPRequestMessage(method: "POST", path: path, headers: headers, body: Array(body.utf8))
    }

    /// Exchanges a fresh assertion for an access token, as an SDK would.
    public func fetchAccessToken(over connection: HTTP2ClientConnection) async throws -> String {
        let response = try await connection.send(tokenRequest(assertion: try assertion()))
        guard response.status == 200,
            let token = try JSONValue(parsing: response.body)["access_token"]?.stringValue
        else {
            throw GatewayStartError("token request failed: \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return token
    }

    /// `POST /v1/projects/{project}/messages:send` with `body` (a `SendMessageRequest` JSON).
    public func fcmSend(
        _ body: String,
        project: String? = nil,
        accessToken: String?,
        path: String? = nil,
        headers extra: [(String, String)] = []
    ) -> HTTPRequestMessage {
        var headers = HTTPHeaderList()
        if let accessToken {
            headers.append(.authorization, value: "Bearer \(accessToken)")
        }
        headers.append(.contentType, value: "application/json; charset=UTF-8")
        for (name, value) in extra {
            headers.append(name: name, value: value)
        }
        return HTTPRequestMessage(
            method: "POST",
            path: path ?? "/v1/projects/\(project ?? self.project)/messages:send",
            headers: headers,
            body: Array(body.utf8)
        )
    }
}

extension HTTPResponseMessage {
    /// The Google error envelope's `error.status`, `error.message` and FcmError `errorCode`.
    public var googleError: (status: String?, message: String?, errorCode: String?, code: Int?)? {
        guard let error = (try? JSONValue(parsing: body))?["error"], error.objectValue != nil else { return nil }
        let details = error["details"]?.arrayValue ?? []
        let fcm = details.first { $0["@type"]?.stringValue?.hasSuffix("FcmError") == true }
        return (error["status"]?.stringValue, error["message"]?.stringValue, fcm?["errorCode"]?.stringValue, error["code"]?.intValue)
    }

    /// The body as a JSON object (cold paths, tests).
    public var jsonObject: [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
    }
}
