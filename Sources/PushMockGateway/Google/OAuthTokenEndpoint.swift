import PushMockAuth
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockSimulation

/// One token request as the pipeline carries it.
struct OAuthTokenExchange: EndpointExchange {
    let request: HTTPRequestMessage
    var reply: HTTPReply?
    var status = 0
    var error: String?
    /// The form fields, parsed once.
    var form: [(name: String, value: String)] = []
    /// The decoded assertion (its signature is checked when authenticating).
    var assertion: ServiceAccountAssertion?
    var account: ServiceAccountRecord?
    var grant: AccessTokenGrant?

    var isAccepted: Bool { status == 200 }
    var faultFacts: FaultFacts { FaultFacts(project: account?.projectID) }
}

/// Google's OAuth2 token endpoint (`POST /token`, `/oauth2/v4/token`) for the service-account
/// JWT-bearer grant (RFC 7523), answering as table C4 of the wire reference describes: the
/// form and the assertion's shape when parsing, the signature, audience and lifetime when
/// authenticating, the scopes when validating, and the issued token as the state change.
struct OAuthTokenEndpoint: GatewayEndpoint {
    let options: FCMOptions
    let accounts: ServiceAccountRegistry
    let tokens: AccessTokenStore
    /// The host's real time, for assertions signed across a gateway clock move.
    let credentialClock: CredentialClock

    static var faultPlatform: Platform? { .oauth }

    static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// Google's answer to an assertion whose `iat`/`exp` it cannot take (push-wire-spec C4).
    static let timeframeDescription =
        "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."

    func parse(_ request: consuming HTTPRequestMessage, in context: PipelineContext) -> OAuthTokenExchange {
        var exchange = OAuthTokenExchange(request: copy request)
        guard request.method == "POST" else {
            fail(&exchange, 405, "invalid_request", "The token endpoint accepts POST only.")
            return exchange
        }
        guard !request.isBodyTruncated else {
            fail(&exchange, 413, "invalid_request", "Request payload size exceeds the limit: \(request.body.count) bytes.")
            return exchange
        }
        exchange.form = FormBody.parse(request.body)
        guard let grantType = exchange.field("grant_type") else {
            fail(&exchange, 400, "invalid_request", "Missing required parameter: grant_type")
            return exchange
        }
        guard grantType == Self.jwtBearerGrant else {
            fail(&exchange, 400, "unsupported_grant_type", "Invalid grant_type: \(grantType)")
            return exchange
        }
        guard let assertionText = exchange.field("assertion"), !assertionText.isEmpty else {
            fail(&exchange, 400, "invalid_request", "Missing required parameter: assertion")
            return exchange
        }
        let assertion: ServiceAccountAssertion
        do {
            assertion = try ServiceAccountAssertion(parsing: assertionText)
        } catch .missingIssuedAt, .invalidIssuedAt, .missingExpiration, .invalidExpiration {
            // What Google says of every iat/exp it cannot take; "Signature" would send the
            // user looking at the wrong part of a correctly signed assertion.
            fail(&exchange, 400, "invalid_grant", Self.timeframeDescription)
            return exchange
        } catch {
            fail(&exchange, 400, "invalid_grant", "Invalid JWT Signature.")
            return exchange
        }
        exchange.assertion = assertion
        exchange.account = accounts.account(clientEmail: assertion.issuer)
        return exchange
    }

    func answerInjected(_ action: FaultAction, _ exchange: inout OAuthTokenExchange, in context: PipelineContext) {
        guard case .oauthError(let error, let description, let status) = action else { return }
        let response = FaultReplies.oauthError(error, description: description, status: status)
        exchange.status = response.status
        exchange.error = error
        exchange.reply = .respond(response)
    }

    func authenticate(_ exchange: inout OAuthTokenExchange, in context: PipelineContext) {
        // `--auth none`: any well-formed assertion gets a token (FCM checks none either).
        guard let assertion = exchange.assertion, options.authentication == .required else { return }
        guard let account = exchange.account,
            assertion.keyID == nil || assertion.keyID == account.privateKeyID,
            assertion.isSigned(by: account.publicKey)
        else {
            return fail(&exchange, 400, "invalid_grant", "Invalid JWT Signature.")
        }
        let audiences = TokenAudience(gatewayTokenURIs: accounts.gatewayTokenURIs)
        let request = exchange.request
        guard audiences.accepts(assertion.audience, requestScheme: request.scheme, requestAuthority: request.authority) else {
            return fail(&exchange, 400, "invalid_grant", TokenAudience.failureDescription)
        }
        let skew = options.assertionClockSkew.wholeMilliseconds / 1000
        // Both lie in years 1–9999 (`JWTJSON.secondsRange`), so neither this nor the
        // comparisons below can overflow.
        let lifetime = assertion.expiresAt - assertion.issuedAt
        let isValid = { (time: Timestamp) -> Bool in
            let seconds = time.secondsSince1970
            return assertion.issuedAt <= seconds + skew && assertion.expiresAt > seconds - skew
        }
        // Valid on the gateway clock, or — signed across a clock move — on the host's real clock.
        // Unlike provider tokens, assertions are not remembered: RS256 signatures are
        // deterministic, so a sender that re-signs within the same real second (after a virtual
        // jump) sends the very same assertion, which must not look an hour old. What is in use
        // for an hour is the access token, and that expires on the gateway clock.
        guard lifetime > 0, lifetime <= 3600, isValid(context.now) || isValid(credentialClock.realNow()) else {
            return fail(&exchange, 400, "invalid_grant", Self.timeframeDescription)
        }
    }

    func validate(_ exchange: inout OAuthTokenExchange, in context: PipelineContext) {
        guard let assertion = exchange.assertion, assertion.scopes.isEmpty else { return }
        fail(&exchange, 400, "invalid_scope", "Empty or missing scope not allowed.")
    }

    func applyState(_ exchange: inout OAuthTokenExchange, in context: PipelineContext) {
        guard let assertion = exchange.assertion else { return }
        let known = exchange.account.map { (clientEmail: $0.clientEmail, projectID: $0.projectID, projectNumber: $0.projectNumber) }
        guard let account = known ?? unauthenticatedAccount(assertion) else { return }
        let grant = tokens.issue(
            clientEmail: account.clientEmail,
            projectID: account.projectID,
            projectNumber: account.projectNumber,
            scopes: assertion.scopes,
            now: context.now,
            lifetime: options.accessTokenLifetime
        )
        exchange.grant = grant
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
        exchange.status = 200
        exchange.reply = .respond(HTTPResponseMessage(status: 200, headers: headers, body: body.bytes))
    }

    func record(_ exchange: OAuthTokenExchange, in context: PipelineContext, latencyMicroseconds: Int64, into record: inout ExchangeRecord)
        -> Bool
    {
        record = ExchangeRecorder.oauthRecord(
            exchange, connection: context.connection, time: context.now, latencyMicroseconds: latencyMicroseconds)
        return true
    }

    /// Under `--auth none`, an assertion from an account the gateway does not know is issued a
    /// token for the sample project.
    private func unauthenticatedAccount(_ assertion: ServiceAccountAssertion) -> (
        clientEmail: String, projectID: String, projectNumber: String?
    )? {
        guard options.authentication == .none else { return nil }
        return (assertion.issuer, options.sampleProjectID, nil)
    }

    private func fail(_ exchange: inout OAuthTokenExchange, _ status: Int, _ error: String, _ description: String) {
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
        exchange.status = status
        exchange.error = error
        exchange.reply = .respond(HTTPResponseMessage(status: status, headers: headers, body: body.bytes))
    }
}

extension OAuthTokenExchange {
    /// The last value of a form field (as Google reads repeated fields).
    func field(_ name: String) -> String? { form.last { $0.name == name }?.value }
}
