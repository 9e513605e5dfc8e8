public import Foundation
import SwiftASN1
public import X509

/// What APNs reads from a TLS client certificate when a provider uses certificate-based
/// authentication: which bundle (topic) it is for, which environments, and for multi-topic
/// certificates the full list of topics.
///
/// The gateway builds one of these per TLS connection from the peer certificate and checks each
/// request's `apns-topic` against ``allowedTopics`` and the connection's environment against
/// ``environments``, answering `TopicDisallowed` / `BadCertificateEnvironment` the way APNs
/// does.
public struct APNsClientCertificate: Sendable, Hashable {
    /// The parsed certificate, for anything not summarised here.
    public let certificate: Certificate
    /// The subject's `UID` attribute (OID 0.9.2342.19200300.100.1.1): the app's bundle ID, which
    /// is the certificate's base topic. `nil` if the subject has none (not an Apple push
    /// certificate).
    public let bundleID: String?
    /// The environments the certificate's Apple extensions allow. Empty when it has neither
    /// extension, which the caller must decide how to treat.
    public let environments: Set<APNsCertificateEnvironment>
    /// Whether the certificate carries Apple's multi-topic extension (1.2.840.113635.100.6.3.6).
    public let isMultiTopic: Bool
    /// The multi-topic extension's entries, in certificate order; empty for a single-topic
    /// certificate.
    public let multiTopics: [APNsCertificateTopic]
    /// Whether the certificate carries Apple's VoIP services extension (1.2.840.113635.100.6.3.4).
    public let hasVoIPExtension: Bool
    /// The subject in certificate order, e.g.
    /// `UID=com.example.app, CN=Apple Push Services: com.example.app, OU=ABCDE12345, O=Example, C=US`.
    public let subject: String
    /// The serial number as colon-separated upper-case hex.
    public let serialNumber: String
    /// Start of the validity period.
    public let notValidBefore: Date
    /// End of the validity period.
    public let notValidAfter: Date

    /// Summarises a parsed certificate.
    ///
    /// - Throws: ``PKIError/malformedAppleExtension`` when the multi-topic extension is present
    ///   but not the expected `SEQUENCE` of topics and kinds.
    public init(certificate: Certificate) throws(PKIError) {
        self.certificate = certificate
        self.bundleID = certificate.subject.firstStringValue(of: AppleCertificateOID.userID)

        let extensions = certificate.extensions
        self.environments = Set(
            APNsCertificateEnvironment.allCases.filter { environment in
                extensions[oid: AppleCertificateOID.extensionID(for: environment)] != nil
            }
        )
        if let topicsExtension = extensions[oid: AppleCertificateOID.topics] {
            self.isMultiTopic = true
            self.multiTopics = try APNsCertificateTopic.decodeList(derEncoded: topicsExtension.value)
        } else {
            self.isMultiTopic = false
            self.multiTopics = []
        }
        self.hasVoIPExtension = extensions[oid: AppleCertificateOID.voip] != nil

        self.subject = certificate.subject.readableDescription
        self.serialNumber = certificate.serialNumber.colonSeparatedHex
        self.notValidBefore = certificate.notValidBefore
        self.notValidAfter = certificate.notValidAfter
    }

    /// Parses and summarises a DER certificate, the form a TLS stack hands over the peer
    /// certificate in.
    ///
    /// - Throws: ``PKIError/invalidCertificate`` or ``PKIError/malformedAppleExtension``.
    public init(derBytes: [UInt8]) throws(PKIError) {
        let certificate: Certificate
        do {
            certificate = try Certificate(derEncoded: derBytes)
        } catch {
            throw PKIError.invalidCertificate.with(detail: "\(error)")
        }
        try self.init(certificate: certificate)
    }

    /// Parses and summarises the first certificate of a PEM document.
    ///
    /// - Throws: ``PKIError/invalidPEM``, ``PKIError/invalidCertificate`` or
    ///   ``PKIError/malformedAppleExtension``.
    public init(pem: String) throws(PKIError) {
        try self.init(certificate: PEM.certificate(fromPEM: pem))
    }
}
