/// An APNs environment a client certificate is valid for, as stated by Apple's certificate
/// extensions.
///
/// Apple issues "development" certificates (valid for `api.sandbox.push.apple.com`),
/// "production" ones, and since 2016 combined "Sandbox & Production" ones carrying both
/// extensions. A certificate with neither is not an Apple push certificate at all; the parser
/// reports an empty set and the gateway decides what to do with it.
public enum APNsCertificateEnvironment: String, Sendable, Hashable, CaseIterable, Codable {
    /// Extension `1.2.840.113635.100.6.3.1` ("Apple Push Notification service Development").
    case sandbox
    /// Extension `1.2.840.113635.100.6.3.2` ("Apple Push Notification service Production").
    case production
}
