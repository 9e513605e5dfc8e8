import SwiftASN1
import X509

extension DistinguishedName {
    /// The name in certificate order with short attribute labels, e.g.
    /// `UID=com.example.app, CN=Apple Push Services: com.example.app, OU=ABCDE12345, O=Example, C=US`.
    ///
    /// This is the order `openssl x509 -subject` prints and people recognise from Keychain, unlike
    /// swift-certificates' RFC 4514 `description`, which reverses it and has no label for `UID`.
    var readableDescription: String {
        map { relativeName in
            relativeName.map { attribute in
                let label = Self.shortLabels[attribute.type] ?? String(describing: attribute.type)
                let value = String(attribute.value) ?? String(describing: attribute.value)
                return "\(label)=\(value)"
            }.joined(separator: "+")
        }.joined(separator: ", ")
    }

    /// Labels for the attributes APNs certificates and PushMock's own certificates use.
    private static let shortLabels: [ASN1ObjectIdentifier: String] = [
        AppleCertificateOID.userID: "UID",
        .RDNAttributeType.commonName: "CN",
        .RDNAttributeType.organizationalUnitName: "OU",
        .RDNAttributeType.organizationName: "O",
        .RDNAttributeType.countryName: "C",
        .RDNAttributeType.localityName: "L",
        .RDNAttributeType.stateOrProvinceName: "ST",
        .RDNAttributeType.streetAddress: "STREET",
        .RDNAttributeType.domainComponent: "DC",
        .RDNAttributeType.emailAddress: "emailAddress",
    ]

    /// The first value of the attribute `type`, if it is a string.
    func firstStringValue(of type: ASN1ObjectIdentifier) -> String? {
        for relativeName in self {
            for attribute in relativeName where attribute.type == type {
                return String(attribute.value)
            }
        }
        return nil
    }
}
