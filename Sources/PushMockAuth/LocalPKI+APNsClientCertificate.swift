public import Foundation
import SwiftASN1
import X509

extension LocalPKI {
    /// Default `OU` of generated APNs client certificates: a 10-character team ID, like Apple's.
    public static let defaultTeamID = "PUSHMOCK00"
    /// Default `O` of generated APNs client certificates.
    public static let defaultOrganization = "PushMock Test Provider"

    /// Issues a client certificate shaped like Apple's APNs certificates, for testing
    /// certificate-based provider authentication against the gateway.
    ///
    /// Subject: `UID=<bundleID>, CN=Apple Push Services: <bundleID>, OU=<teamID>, O=<organization>,
    /// C=US`, in that order, as Apple issues them. Extensions: ExtendedKeyUsage clientAuth,
    /// BasicConstraints CA:false and KeyUsage digitalSignature (critical), SubjectKeyIdentifier,
    /// AuthorityKeyIdentifier, and Apple's non-critical markers: one per environment
    /// (1.2.840.113635.100.6.3.1 sandbox, .2 production, value ASN.1 NULL), the topic list
    /// (1.2.840.113635.100.6.3.6) when `multiTopics` is given, and the VoIP marker
    /// (1.2.840.113635.100.6.3.4, NULL) when asked for. ``APNsClientCertificate`` reads all of it
    /// back.
    ///
    /// - Parameters:
    ///   - issuer: the CA that signs it (the gateway must trust it for client auth).
    ///   - bundleID: the app's bundle ID: the `UID` and the base topic.
    ///   - teamID: the subject's `OU`.
    ///   - organization: the subject's `O`.
    ///   - environments: which environment extensions to include; Apple's current certificates
    ///     carry both. An empty set produces a certificate with neither.
    ///   - multiTopics: the topic list for a multi-topic certificate, or `nil` for a single-topic
    ///     one.
    ///   - includeVoIPExtension: whether to add the VoIP services marker.
    ///   - validity: lifetime from `now`, capped at the CA's expiry.
    ///   - now: the issuance time; injectable for tests.
    /// - Throws: ``PKIError/certificateCreationFailed``.
    public static func makeAPNsClientCertificate(
        issuer: LocalCertificateAuthority,
        bundleID: String,
        teamID: String = defaultTeamID,
        organization: String = defaultOrganization,
        environments: Set<APNsCertificateEnvironment> = [.sandbox, .production],
        multiTopics: [APNsCertificateTopic]? = nil,
        includeVoIPExtension: Bool = false,
        validity: TimeInterval = defaultLeafValidity,
        now: Date = Date()
    ) throws(PKIError) -> IssuedCertificate {
        let subject: DistinguishedName
        do {
            subject = try DistinguishedName([
                RelativeDistinguishedName.Attribute(type: AppleCertificateOID.userID, utf8String: bundleID),
                RelativeDistinguishedName.Attribute(type: .RDNAttributeType.commonName, utf8String: "Apple Push Services: \(bundleID)"),
                RelativeDistinguishedName.Attribute(type: .RDNAttributeType.organizationalUnitName, utf8String: teamID),
                RelativeDistinguishedName.Attribute(type: .RDNAttributeType.organizationName, utf8String: organization),
                RelativeDistinguishedName.Attribute(type: .RDNAttributeType.countryName, printableString: "US"),
            ])
        } catch {
            throw PKIError.certificateCreationFailed.with(detail: "\(error)")
        }

        // Stable order regardless of Set iteration: sandbox marker first, as Apple does.
        let appleMarkers = APNsCertificateEnvironment.allCases.filter(environments.contains).map { environment in
            Certificate.Extension(
                oid: AppleCertificateOID.extensionID(for: environment),
                critical: false,
                value: AppleCertificateOID.nullValue[...]
            )
        }
        var appleExtensions = appleMarkers
        if let multiTopics {
            appleExtensions.append(
                Certificate.Extension(
                    oid: AppleCertificateOID.topics,
                    critical: false,
                    value: try APNsCertificateTopic.derEncodedList(multiTopics)[...]
                )
            )
        }
        if includeVoIPExtension {
            appleExtensions.append(
                Certificate.Extension(oid: AppleCertificateOID.voip, critical: false, value: AppleCertificateOID.nullValue[...])
            )
        }
        let appleExtensionSet: Certificate.Extensions
        do {
            appleExtensionSet = try Certificate.Extensions(appleExtensions)
        } catch {
            throw PKIError.certificateCreationFailed.with(detail: "\(error)")
        }

        return try issueLeaf(issuer: issuer, subject: subject, validity: validity, now: now) {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.clientAuth])
            appleExtensionSet
        }
    }
}
