/// Why a certificate or key could not be read, inspected or created.
///
/// Same shape as ``JWTError``: compare with the `static let` members. Equality and hashing look
/// only at the reason, never at ``detail``, so `error == .invalidPEM` holds whatever the
/// underlying library said; the detail is there for logs and test failure messages.
public struct PKIError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidPEM
        case invalidCertificate
        case unsupportedKey
        case keyDoesNotMatchCertificate
        case invalidIPAddress
        case malformedAppleExtension
        case certificateCreationFailed
        case fileWriteFailed
    }

    private let code: Code
    /// What the underlying library or check reported, when there is more to say.
    public let detail: String?

    private init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    /// The text is not PEM, or not the PEM type expected (`CERTIFICATE`, `PRIVATE KEY`, ...).
    public static let invalidPEM = PKIError(.invalidPEM)
    /// The bytes are not a DER X.509 certificate.
    public static let invalidCertificate = PKIError(.invalidCertificate)
    /// The private key is not a P-256 key, the only kind the local PKI issues and signs with.
    public static let unsupportedKey = PKIError(.unsupportedKey)
    /// A certificate and the private key offered with it do not belong together.
    public static let keyDoesNotMatchCertificate = PKIError(.keyDoesNotMatchCertificate)
    /// A string meant as a subject-alternative-name IP address is not IPv4 or IPv6 text.
    public static let invalidIPAddress = PKIError(.invalidIPAddress)
    /// An Apple APNs extension (the multi-topic list) does not have the expected ASN.1 shape.
    public static let malformedAppleExtension = PKIError(.malformedAppleExtension)
    /// swift-certificates refused to build or sign the certificate.
    public static let certificateCreationFailed = PKIError(.certificateCreationFailed)
    /// A PEM file could not be written.
    public static let fileWriteFailed = PKIError(.fileWriteFailed)

    /// The same reason with more detail attached.
    func with(detail: String) -> PKIError {
        PKIError(code, detail: detail)
    }

    /// Equal when the reasons are equal, whatever the details say.
    public static func == (lhs: PKIError, rhs: PKIError) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the reason only, consistent with ``==``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }

    /// The reason, followed by the detail when there is one.
    public var description: String {
        let reason =
            switch code {
            case .invalidPEM: "not a PEM document of the expected type"
            case .invalidCertificate: "not a valid DER X.509 certificate"
            case .unsupportedKey: "unsupported private key (the local PKI uses P-256 keys only)"
            case .keyDoesNotMatchCertificate: "the private key does not match the certificate's public key"
            case .invalidIPAddress: "not an IPv4 or IPv6 address"
            case .malformedAppleExtension: "malformed Apple APNs certificate extension"
            case .certificateCreationFailed: "the certificate could not be created"
            case .fileWriteFailed: "the PEM file could not be written"
            }
        guard let detail else { return reason }
        return "\(reason): \(detail)"
    }
}
