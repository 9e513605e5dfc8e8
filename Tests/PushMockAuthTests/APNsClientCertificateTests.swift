import Foundation
import Testing
import X509

@testable import PushMockAuth

@Suite("APNs client certificates")
struct APNsClientCertificateTests {
    let authority: LocalCertificateAuthority

    init() throws {
        authority = try LocalPKI.makeCertificateAuthority(commonName: "Test CA")
    }

    @Test func singleTopicCertificateRoundTrips() throws {
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        let issued = try LocalPKI.makeAPNsClientCertificate(
            issuer: authority,
            bundleID: "com.example.app",
            teamID: "ABCDE12345",
            organization: "Example, Inc.",
            validity: 86_400,
            now: now
        )
        let derBytes = issued.certificateDER
        let parsed = try APNsClientCertificate(derBytes: derBytes)

        #expect(parsed.bundleID == "com.example.app")
        #expect(parsed.environments == [.sandbox, .production])
        #expect(!parsed.isMultiTopic)
        #expect(parsed.multiTopics.isEmpty)
        #expect(!parsed.hasVoIPExtension)
        #expect(parsed.allowedTopics == ["com.example.app", "com.example.app.voip", "com.example.app.complication"])
        #expect(parsed.allows(topic: "com.example.app.voip"))
        #expect(!parsed.allows(topic: "com.example.other"))
        #expect(parsed.subject == "UID=com.example.app, CN=Apple Push Services: com.example.app, OU=ABCDE12345, O=Example, Inc., C=US")
        #expect(parsed.notValidBefore == now.addingTimeInterval(-LocalPKI.backdating))
        #expect(parsed.notValidAfter == now.addingTimeInterval(86_400))
        #expect(parsed.serialNumber.split(separator: ":").allSatisfy { $0.count == 2 })
        #expect(parsed.serialNumber.split(separator: ":").count == issued.certificate.serialNumber.bytes.count)

        // The PEM convenience gives the same answer.
        #expect(try APNsClientCertificate(pem: issued.certificatePEM) == parsed)
    }

    @Test func multiTopicCertificateRoundTrips() throws {
        let topics = [
            APNsCertificateTopic(topic: "com.example.app", kinds: ["app"]),
            APNsCertificateTopic(topic: "com.example.app.voip", kinds: ["voip"]),
            APNsCertificateTopic(topic: "com.example.app.complication", kinds: ["complication"]),
        ]
        let issued = try LocalPKI.makeAPNsClientCertificate(
            issuer: authority,
            bundleID: "com.example.app",
            multiTopics: topics,
            includeVoIPExtension: true
        )
        let parsed = try APNsClientCertificate(pem: issued.certificatePEM)

        #expect(parsed.isMultiTopic)
        #expect(parsed.multiTopics == topics)
        #expect(parsed.hasVoIPExtension)
        #expect(parsed.allowedTopics == ["com.example.app", "com.example.app.voip", "com.example.app.complication"])
    }

    @Test func multiTopicKindsAddSuffixedVariants() throws {
        let issued = try LocalPKI.makeAPNsClientCertificate(
            issuer: authority,
            bundleID: "com.example.app",
            multiTopics: [
                APNsCertificateTopic(topic: "com.example.app", kinds: ["app"]),
                APNsCertificateTopic(topic: "com.example.watch", kinds: ["app", "voip", "complication"]),
                APNsCertificateTopic(topic: "com.example.empty", kinds: []),
            ]
        )
        let parsed = try APNsClientCertificate(pem: issued.certificatePEM)
        #expect(
            parsed.allowedTopics == [
                "com.example.app",
                "com.example.watch", "com.example.watch.voip", "com.example.watch.complication",
                "com.example.empty",
            ])
        #expect(!parsed.allows(topic: "com.example.app.voip"))
    }

    @Test(arguments: [
        Set<APNsCertificateEnvironment>(), [.sandbox], [.production], [.sandbox, .production],
    ])
    func reportsTheEnvironmentExtensions(environments: Set<APNsCertificateEnvironment>) throws {
        let issued = try LocalPKI.makeAPNsClientCertificate(issuer: authority, bundleID: "com.example.app", environments: environments)
        #expect(try APNsClientCertificate(certificate: issued.certificate).environments == environments)
    }

    @Test func appleMarkerExtensionsAreNonCriticalNulls() throws {
        let issued = try LocalPKI.makeAPNsClientCertificate(issuer: authority, bundleID: "b", includeVoIPExtension: true)
        for oid in [AppleCertificateOID.developmentEnvironment, AppleCertificateOID.productionEnvironment, AppleCertificateOID.voip] {
            let marker = try #require(issued.certificate.extensions[oid: oid])
            #expect(!marker.critical)
            #expect(Array(marker.value) == [0x05, 0x00])
        }
    }

    @Test func topicListUsesAppleEncoding() throws {
        let encoded = try APNsCertificateTopic.derEncodedList([APNsCertificateTopic(topic: "a.b", kinds: ["app"])])
        // SEQUENCE { UTF8String "a.b", SEQUENCE { UTF8String "app" } }
        #expect(encoded == [0x30, 0x0C, 0x0C, 0x03, 0x61, 0x2E, 0x62, 0x30, 0x05, 0x0C, 0x03, 0x61, 0x70, 0x70])
        #expect(try APNsCertificateTopic.decodeList(derEncoded: encoded[...]) == [APNsCertificateTopic(topic: "a.b", kinds: ["app"])])
    }

    @Test func topicListAcceptsOtherStringTypesAndTopicsWithoutKinds() throws {
        // SEQUENCE { IA5String "x", PrintableString "y", SEQUENCE { UTF8String "voip" } }
        let encoded: [UInt8] = [0x30, 0x0E, 0x16, 0x01, 0x78, 0x13, 0x01, 0x79, 0x30, 0x06, 0x0C, 0x04, 0x76, 0x6F, 0x69, 0x70]
        #expect(
            try APNsCertificateTopic.decodeList(derEncoded: encoded[...]) == [
                APNsCertificateTopic(topic: "x", kinds: []),
                APNsCertificateTopic(topic: "y", kinds: ["voip"]),
            ])
    }

    @Test(arguments: [
        [0x05, 0x00] as [UInt8],  // NULL, not a SEQUENCE
        [0x30, 0x03, 0x02, 0x01, 0x01],  // SEQUENCE { INTEGER 1 }
        [0x30, 0x02, 0x30, 0x00],  // kinds before any topic
        [0x30, 0x07, 0x0C, 0x01, 0x78, 0x30, 0x02, 0x05, 0x00],  // a kind that is not a string
        [0x30, 0x05, 0x0C],  // truncated
    ])
    func rejectsMalformedTopicLists(encoded: [UInt8]) {
        #expect(throws: PKIError.malformedAppleExtension) {
            try APNsCertificateTopic.decodeList(derEncoded: encoded[...])
        }
    }

    @Test func aCertificateWithoutAppleDataIsReportedAsSuch() throws {
        let server = try LocalPKI.makeServerCertificate(issuer: authority, dnsNames: ["localhost"], ipAddresses: [])
        let parsed = try APNsClientCertificate(certificate: server.certificate)
        #expect(parsed.bundleID == nil)
        #expect(parsed.environments.isEmpty)
        #expect(parsed.allowedTopics.isEmpty)
        #expect(parsed.subject == "CN=localhost, O=PushMock")
    }

    @Test func rejectsBytesThatAreNotACertificate() {
        #expect(throws: PKIError.invalidCertificate) {
            try APNsClientCertificate(derBytes: [0x30, 0x00])
        }
        #expect(throws: PKIError.invalidPEM) {
            try APNsClientCertificate(pem: "no pem here")
        }
        #expect(throws: PKIError.invalidPEM) {
            try APNsClientCertificate(pem: APNsSigningKey.generate(keyID: "K", teamID: "T").pkcs8PEM)
        }
    }
}
