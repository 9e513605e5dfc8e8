/// How the request authenticated, as far as the gateway could tell.
///
/// JWT header and claims are kept as the raw (decoded) JSON bytes so the journal shows exactly
/// what the client signed, including claims the mock does not understand.
public struct AuthInfo: Sendable, Hashable {
    /// `"bearer-jwt"`, `"certificate"`, `"bearer"` (opaque OAuth token) or `"none"`.
    public var scheme: String
    /// The JWT header: must be valid compact JSON (embedded verbatim in the journal).
    public var jwtHeader: [UInt8]?
    /// The JWT claims: must be valid compact JSON (embedded verbatim in the journal).
    public var jwtClaims: [UInt8]?
    /// JWT `kid` (APNs key ID).
    public var keyID: String?
    /// JWT `iss` for APNs (the team ID).
    public var teamID: String?
    /// Certificate subject, OAuth client e-mail or similar principal.
    public var subject: String?
    /// Free-form explanation, e.g. why verification failed.
    public var detail: String?

    /// Creates authentication information; defaults to no authentication.
    public init(
        scheme: String = "none",
        jwtHeader: [UInt8]? = nil,
        jwtClaims: [UInt8]? = nil,
        keyID: String? = nil,
        teamID: String? = nil,
        subject: String? = nil,
        detail: String? = nil
    ) {
        self.scheme = scheme
        self.jwtHeader = jwtHeader
        self.jwtClaims = jwtClaims
        self.keyID = keyID
        self.teamID = teamID
        self.subject = subject
        self.detail = detail
    }
}
