import SwiftASN1

/// Object identifiers Apple uses in APNs client certificates.
enum AppleCertificateOID {
    /// Subject attribute `UID` (RFC 4519 `userId`): the bundle ID, i.e. the default topic.
    static let userID: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]
    /// Extension: valid for the development (sandbox) environment. Value: ASN.1 NULL.
    static let developmentEnvironment: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 1]
    /// Extension: valid for the production environment. Value: ASN.1 NULL.
    static let productionEnvironment: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 2]
    /// Extension: VoIP services certificate. Value: ASN.1 NULL.
    static let voip: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 4]
    /// Extension: the multi-topic list (see ``APNsCertificateTopic``).
    static let topics: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 3, 6]

    /// The DER encoding of ASN.1 NULL, the value Apple gives its marker extensions.
    static let nullValue: [UInt8] = [0x05, 0x00]

    /// The extension OID that marks `environment`.
    static func extensionID(for environment: APNsCertificateEnvironment) -> ASN1ObjectIdentifier {
        switch environment {
        case .sandbox: developmentEnvironment
        case .production: productionEnvironment
        }
    }
}
