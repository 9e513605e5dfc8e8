import Foundation
import PushMockAuth
import PushMockCore
import PushMockJSON
import PushMockRecording

/// Google's OAuth2 token endpoint (`POST /token`, `/oauth2/v4/token`) for the service-account
/// JWT-bearer grant (RFC 7523), answering as table C4 of the wire reference describes.
struct OAuthService {
    let options: FCMOptions
    let accounts: ServiceAccountRegistry
    let tokens: AccessTokenStore

    static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    struct Outcome {
        var reply: HTTPReply
        var status: Int
        var error: String?
        var assertion: ServiceAccountAssertion?
        var grant: AccessTokenGrant?
    }

    func handle(_ request: HTTPRequestMessage, now: Timestamp) -> Outcome {
        guard request.method == "POST" else {
            return failure(405, "invalid_request", "The token endpoint accepts POST only.")
        }
        let form = FormBody.parse(request.body)
        func field(_ name: String) -> String? { form.last { $0.name == name }?.value }

        guard let grantType = field("grant_type") else {
            return failure(400, "invalid_request", "Missing required parameter: grant_type")
        }
        guard grantType == Self.jwtBearerGrant else {
            return failure(400, "unsupported_grant_type", "Invalid grant_type: \(grantType)")
        }
        guard let assertionText = field("assertion"), !assertionText.isEmpty else {
            return failure(400, "invalid_request", "Missing required parameter: assertion")
        }
        guard let assertion = try? ServiceAccountAssertion(parsing: assertionText) else {
            return failure(400, "invalid_grant", "Invalid JWT Signature.")
        }
        var outcome = failure(400, "invalid_grant", "Invalid JWT Signature.")
        outcome.assertion = assertion
        guard let account = accounts.account(clientEmail: assertion.issuer),
            assertion.keyID == nil || assertion.keyID == account.privateKeyID,
            assertion.isSigned(by: account.publicKey)
        else {
            return outcome
        }
        let audiences = TokenAudience(gatewayTokenURIs: accounts.gatewayTokenURIs)
        guard audiences.accepts(assertion.audience, requestScheme: request.scheme, requestAuthority: request.authority) else {
            var rejected = failure(400, "invalid_grant", TokenAudience.failureDescription)
            rejected.assertion = assertion
            return rejected
        }
        let skew = options.assertionClockSkew.wholeMilliseconds / 1000
        let nowSeconds = now.secondsSince1970
        let lifetime = assertion.expiresAt - assertion.issuedAt
        guard lifetime > 0, lifetime <= 3600, assertion.issuedAt <= nowSeconds + skew, assertion.expiresAt > nowSeconds - skew else {
            var rejected = failure(
                400,
                "invalid_grant",
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
            )
            rejected.assertion = assertion
            return rejected
        }
        let scopes = assertion.scopes
        guard !scopes.isEmpty else {
            var rejected = failure(400, "invalid_scope", "Empty or missing scope not allowed.")
            rejected.assertion = assertion
            return rejected
        }
        let grant = tokens.issue(
            clientEmail: account.clientEmail,
            projectID: account.projectID,
            projectNumber: account.projectNumber,
            scopes: scopes,
            now: now,
            lifetime: options.accessTokenLifetime
        )
        let expiresIn = max(1, options.accessTokenLifetime.wholeMilliseconds / 1000 - 1)
        var body = JSONWriterBox()
        body.object { writer in
            writer.key("access_token")
            writer.string(grant.token)
            writer.key("expires_in")
            writer.number(expiresIn)
            writer.key("token_type")
            writer.string("Bearer")
        }
        var headers = HTTPHeaderList()
        headers.append(name: "content-type", value: "application/json; charset=utf-8")
        headers.append(name: "cache-control", value: "no-cache, no-store, max-age=0, must-revalidate")
        headers.append(name: "pragma", value: "no-cache")
        return Outcome(
            reply: .respond(HTTPResponseMessage(status: 200, headers: headers, body: body.bytes)),
            status: 200,
            error: nil,
            assertion: assertion,
            grant: grant
        )
    }

    private func failure(_ status: Int, _ error: String, _ description: String) -> Outcome {
        var body = JSONWriterBox()
        body.object { writer in
            writer.key("error")
            writer.string(error)
            writer.key("error_description")
            writer.string(description)
        }
        var headers = HTTPHeaderList()
        headers.append(name: "content-type", value: "application/json; charset=utf-8")
        headers.append(name: "cache-control", value: "no-cache, no-store, max-age=0, must-revalidate")
        return Outcome(
            reply: .respond(HTTPResponseMessage(status: status, headers: headers, body: body.bytes)),
            status: status,
            error: error
        )
    }
}
