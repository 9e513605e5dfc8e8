import Crypto
import Foundation
import PushMockAuth
import PushMockCore
import PushMockGateway
import PushMockRecording
import PushMockSimulation
import PushMockTesting
import PushMockTransport
import Testing

/// Token-based (ES256 JWT) and certificate-based authentication, as APNs applies them per
/// connection.
let tokenEncodings: [(ES256.SignatureEncoding, APNsSigningKey.IssuedAtEncoding)] = ES256.SignatureEncoding.allCases
    .flatMap { signature in APNsSigningKey.IssuedAtEncoding.allCases.map { (signature, $0) } }

let invalidTokenNames = APNsAuthenticationTests.invalidTokens.map(\.0)

@Suite("APNs authentication")
struct APNsAuthenticationTests {
    @Test("provider tokens are accepted in every encoding real clients use", arguments: tokenEncodings)
    func encodings(signature: ES256.SignatureEncoding, issuedAt: APNsSigningKey.IssuedAtEncoding) async throws {
        try await withPushMock { mock in
            let jwt = try mock.providerToken(signatureEncoding: signature, issuedAtEncoding: issuedAt)
            let response = try await mock.sendOnNewConnection(try mock.apnsRequest(providerToken: .some(jwt)))
            expectAccepted(response)
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.auth?.scheme == "bearer-jwt")
            #expect(record.auth?.keyID == mock.sampleKey.keyID)
            #expect(record.auth?.teamID == mock.sampleKey.teamID)
            // The recording keeps the decoded header and claims, never the signature.
            let authorization = record.request.headers.first { $0.name == "authorization" }?.value ?? ""
            #expect(!authorization.contains(jwt.split(separator: ".")[2]))
            #expect(!String(decoding: record.jsonLine, as: UTF8.self).contains(jwt.split(separator: ".")[2]))
        }
    }

    @Test("a DER signature made by openssl is accepted (Apple's own recipe)")
    func opensslSignature() async throws {
        try await withPushMock { mock in
            let directory = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let keyPath = directory + "/key.p8"
            try mock.sampleKey.signingKey.pkcs8PEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
            let header = Base64URL.encode(#"{"alg":"ES256","kid":"\#(mock.sampleKey.keyID)"}"#)
            let claims = Base64URL.encode(#"{"iss":"\#(mock.sampleKey.teamID)","iat":\#(mock.state.clock.now().secondsSince1970)}"#)
            let inputPath = directory + "/input"
            try "\(header).\(claims)".write(toFile: inputPath, atomically: true, encoding: .utf8)
            let signed = try await run("/usr/bin/openssl", ["dgst", "-sha256", "-sign", keyPath, "-out", directory + "/sig", inputPath])
            #expect(signed.status == 0, "\(signed.error)")
            let signature = try Data(contentsOf: URL(fileURLWithPath: directory + "/sig"))
            #expect(signature.first == 0x30, "openssl writes DER")
            let jwt = "\(header).\(claims).\(Base64URL.encode(signature))"
            let response = try await mock.sendOnNewConnection(try mock.apnsRequest(providerToken: .some(jwt)))
            expectAccepted(response)
        }
    }

    static let invalidTokens: [(String, @Sendable (PushMockHarness) throws -> String)] = [
        ("not a JWT", { _ in "abc" }),
        ("two segments", { _ in "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJYIn0" }),
        ("garbage base64", { _ in "!!!.@@@.###" }),
        (
            "HS256",
            { mock in
                let header = Base64URL.encode(#"{"alg":"HS256","kid":"\#(mock.sampleKey.keyID)"}"#)
                let claims = Base64URL.encode(#"{"iss":"\#(mock.sampleKey.teamID)","iat":\#(mock.state.clock.now().secondsSince1970)}"#)
                return "\(header).\(claims).c2ln"
            }
        ),
        (
            "unknown key id",
            { mock in
                try APNsSigningKey.generate(keyID: "UNKNOWN001", teamID: mock.sampleKey.teamID)
                    .makeProviderToken(issuedAt: mock.state.clock.now().secondsSince1970)
            }
        ),
        (
            "signed by another key with the sample key id",
            { mock in
                try APNsSigningKey.generate(keyID: mock.sampleKey.keyID, teamID: mock.sampleKey.teamID)
                    .makeProviderToken(issuedAt: mock.state.clock.now().secondsSince1970)
            }
        ),
        (
            "iss is not the key's team",
            { mock in
                try APNsSigningKey(privateKey: mock.sampleKey.signingKey.privateKey, keyID: mock.sampleKey.keyID, teamID: "OTHERTEAM1")
                    .makeProviderToken(issuedAt: mock.state.clock.now().secondsSince1970)
            }
        ),
        // Signed by the sample key: the age of `Int64.min` overflowed and took the gateway down.
        ("iat -2^63", { mock in try mock.sampleKey.signingKey.makeProviderToken(issuedAt: .min) }),
        ("iat 2^63 - 1", { mock in try mock.sampleKey.signingKey.makeProviderToken(issuedAt: .max) }),
        ("iat in year 10000", { mock in try mock.sampleKey.signingKey.makeProviderToken(issuedAt: 253_402_300_800) }),
        (
            "tampered claims",
            { mock in
                let good = try mock.providerToken().split(separator: ".")
                let claims = Base64URL.encode(#"{"iss":"\#(mock.sampleKey.teamID)","iat":\#(mock.state.clock.now().secondsSince1970 + 1)}"#)
                return "\(good[0]).\(claims).\(good[2])"
            }
        ),
    ]

    @Test("invalid provider tokens are InvalidProviderToken", arguments: invalidTokenNames)
    func invalidToken(name: String) async throws {
        let make = try #require(Self.invalidTokens.first { $0.0 == name }?.1)
        try await withPushMock { mock in
            let response = try await mock.sendOnNewConnection(try mock.apnsRequest(providerToken: .some(try make(mock))))
            expectAPNsError(response, status: 403, reason: "InvalidProviderToken")
            // Even a rejected token is recorded decoded where possible, never with its signature.
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.response.reason == "InvalidProviderToken")
            // And the gateway is still there for the next sender.
            #expect(try await mock.sendOnNewConnection(try mock.apnsRequest()).status == 200)
        }
    }

    @Test("a token older than one hour is ExpiredProviderToken; exactly one hour is still valid")
    func expiry() async throws {
        // A frozen clock: on a loaded machine real seconds pass between minting and checking.
        let clock = VirtualClock(frozenAt: Timestamp(secondsSince1970: 1_800_000_000))
        try await withPushMock(clock: clock) { mock in
            let now = mock.state.clock.now()
            let old = try mock.providerToken(issuedAt: now - .seconds(3601))
            expectAPNsError(
                try await mock.sendOnNewConnection(try mock.apnsRequest(providerToken: .some(old))), status: 403,
                reason: "ExpiredProviderToken")
            let edge = try mock.providerToken(issuedAt: now - .seconds(3600))
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest(providerToken: .some(edge))))
        }
    }

    @Test("a token in use expires as the (virtual) clock passes one hour")
    func expiresOnTheConnection() async throws {
        let clock = VirtualClock(frozenAt: Timestamp(secondsSince1970: 1_800_000_000))
        try await withPushMock(clock: clock) { mock in
            let connection = try await mock.connect()
            let jwt = try mock.providerToken()
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(jwt))))
            clock.advance(by: .seconds(3600))
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(jwt))))
            clock.advance(by: .seconds(1))
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .some(jwt))), status: 403, reason: "ExpiredProviderToken")
            await connection.close()
        }
    }

    @Test("a new token within 20 minutes of the previous one is TooManyProviderTokenUpdates")
    func tooManyUpdates() async throws {
        let clock = VirtualClock(frozenAt: Timestamp(secondsSince1970: 1_800_000_000))
        try await withPushMock(clock: clock) { mock in
            let connection = try await mock.connect()
            let first = try mock.providerToken()
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(first))))
            clock.advance(by: .seconds(60))
            let early = try mock.providerToken()
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .some(early))), status: 429,
                reason: "TooManyProviderTokenUpdates")
            // The token in use keeps working.
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(first))))
            clock.advance(by: .seconds(19 * 60))
            let onTime = try mock.providerToken()
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(onTime))))
            // A token with an earlier iat than the one in use is an update too.
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .some(early))), status: 429,
                reason: "TooManyProviderTokenUpdates")
            await connection.close()
            // Another connection may use any valid token.
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest(providerToken: .some(early))))
        }
    }

    @Test("the 20 minutes run from when the connection started using its token, not from its iat")
    func cachedTokenOnNewConnection() async throws {
        let clock = VirtualClock(frozenAt: Timestamp(secondsSince1970: 1_800_000_000))
        try await withPushMock(clock: clock) { mock in
            let now = mock.state.clock.now()
            // A token cached 25 minutes ago, reused on a new connection…
            let cached = try mock.providerToken(issuedAt: now - .seconds(25 * 60))
            let connection = try await mock.connect()
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(cached))))
            // …then replaced by a fresh one right away: APNs counts from the switch to `cached`.
            let fresh = try mock.providerToken(issuedAt: now)
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .some(fresh))), status: 429,
                reason: "TooManyProviderTokenUpdates")
            clock.advance(by: .seconds(20 * 60 - 1))
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .some(fresh))), status: 429,
                reason: "TooManyProviderTokenUpdates")
            clock.advance(by: .seconds(1))
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(fresh))))
            await connection.close()
        }
    }

    @Test("replacing a token that has expired is never too many updates")
    func expiredTokenReplaced() async throws {
        let clock = VirtualClock(frozenAt: Timestamp(secondsSince1970: 1_800_000_000))
        try await withPushMock(clock: clock) { mock in
            let now = mock.state.clock.now()
            let connection = try await mock.connect()
            let late = try mock.providerToken(issuedAt: now - .seconds(50 * 60))
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(late))))
            // Ten minutes after the switch `late` is exactly one hour old: still valid, so a new
            // token is an early update.
            clock.advance(by: .seconds(10 * 60))
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .some(try mock.providerToken()))),
                status: 429,
                reason: "TooManyProviderTokenUpdates"
            )
            // One second later it has expired: the update is forced, with or without the client
            // having been told first.
            clock.advance(by: .seconds(1))
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(try mock.providerToken()))))
            await connection.close()

            let told = try await mock.connect()
            let cached = try mock.providerToken(issuedAt: mock.state.clock.now() - .seconds(55 * 60))
            expectAccepted(try await told.send(try mock.apnsRequest(providerToken: .some(cached))))
            clock.advance(by: .seconds(6 * 60))
            expectAPNsError(
                try await told.send(try mock.apnsRequest(providerToken: .some(cached))), status: 403, reason: "ExpiredProviderToken")
            expectAccepted(try await told.send(try mock.apnsRequest(providerToken: .some(try mock.providerToken()))))
            // The new token starts a new 20 minutes.
            expectAPNsError(
                try await told.send(try mock.apnsRequest(providerToken: .some(try mock.providerToken()))),
                status: 429,
                reason: "TooManyProviderTokenUpdates"
            )
            await told.close()
        }
    }

    @Test("after an injected ExpiredProviderToken the next new token is accepted at once")
    func injectedExpiryForcesUpdate() async throws {
        let clock = VirtualClock(frozenAt: Timestamp(secondsSince1970: 1_800_000_000))
        try await withPushMock(clock: clock) { mock in
            let connection = try await mock.connect()
            let first = try mock.providerToken()
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(first))))
            clock.advance(by: .seconds(60))
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: .apnsError(reason: "ExpiredProviderToken")))
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .some(first))), status: 403, reason: "ExpiredProviderToken")
            // A request still in flight with the old token does not take the exemption away.
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(first))))
            let replacement = try mock.providerToken()
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(replacement))))
            // Only that one update was forced.
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .some(try mock.providerToken()))),
                status: 429,
                reason: "TooManyProviderTokenUpdates"
            )
            await connection.close()
        }
    }

    @Test("the interval check can be turned off")
    func updateIntervalOff() async throws {
        try await withPushMock(configure: { $0.apns.providerTokenUpdateInterval = .zero }) { mock in
            let connection = try await mock.connect()
            let now = mock.state.clock.now()
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(try mock.providerToken(issuedAt: now)))))
            expectAccepted(
                try await connection.send(try mock.apnsRequest(providerToken: .some(try mock.providerToken(issuedAt: now + .seconds(1))))))
            await connection.close()
        }
    }

    /// Registers a key and returns it.
    static func register(
        _ mock: PushMockHarness,
        keyID: String,
        teamID: String? = nil,
        environments: Set<APNsEnvironment> = [.sandbox, .production],
        scope: APNsKeyRecord.Scope = .team,
        bundleIDs: Set<String>? = nil,
        relatedKeyID: String? = nil
    ) -> APNsSigningKey {
        let key = APNsSigningKey.generate(keyID: keyID, teamID: teamID ?? mock.sampleKey.teamID)
        mock.state.apnsKeys.register(
            APNsKeyRecord(
                keyID: keyID,
                teamID: key.teamID,
                publicKey: key.publicKey,
                environments: environments,
                scope: scope,
                bundleIDs: bundleIDs,
                relatedKeyID: relatedKeyID
            )
        )
        return key
    }

    @Test("a connection is bound to the team of its first push")
    func teamBinding() async throws {
        let clock = VirtualClock(frozenAt: Timestamp(secondsSince1970: 1_800_000_000))
        try await withPushMock(clock: clock) { mock in
            let otherTeam = Self.register(mock, keyID: "OTHERKEY01", teamID: "OTHERTEAM1")
            let connection = try await mock.connect()
            expectAccepted(try await connection.send(try mock.apnsRequest()))
            clock.advance(by: .seconds(21 * 60))
            let foreign = try mock.providerToken(key: otherTeam)
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .some(foreign))), status: 403, reason: "InvalidProviderToken")
            await connection.close()
            // On its own connection the other team's key is fine.
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest(providerToken: .some(foreign))))
        }
    }

    @Test("keys unrelated to the connection's first key are UnrelatedKeyIdInToken")
    func unrelatedKeys() async throws {
        let clock = VirtualClock(frozenAt: Timestamp(secondsSince1970: 1_800_000_000))
        try await withPushMock(clock: clock) { mock in
            let topicKey = Self.register(mock, keyID: "TOPICKEY01", scope: .topic, bundleIDs: [mock.topic], relatedKeyID: "TOPICKEY02")
            let relatedKey = Self.register(mock, keyID: "TOPICKEY02", scope: .topic, bundleIDs: [mock.topic])
            let unrelatedKey = Self.register(mock, keyID: "TOPICKEY03", scope: .topic, bundleIDs: [mock.topic])
            let secondTeamKey = Self.register(mock, keyID: "TEAMKEY002")

            // Team-scoped first: another team-scoped key of the team is fine, a topic key is not.
            let teamConnection = try await mock.connect()
            expectAccepted(try await teamConnection.send(try mock.apnsRequest()))
            clock.advance(by: .seconds(21 * 60))
            expectAccepted(
                try await teamConnection.send(try mock.apnsRequest(providerToken: .some(try mock.providerToken(key: secondTeamKey)))))
            clock.advance(by: .seconds(21 * 60))
            expectAPNsError(
                try await teamConnection.send(try mock.apnsRequest(providerToken: .some(try mock.providerToken(key: topicKey)))),
                status: 403,
                reason: "UnrelatedKeyIdInToken"
            )
            await teamConnection.close()

            // Topic-specific first: only its related key.
            let topicConnection = try await mock.connect()
            expectAccepted(
                try await topicConnection.send(try mock.apnsRequest(providerToken: .some(try mock.providerToken(key: topicKey)))))
            clock.advance(by: .seconds(21 * 60))
            expectAPNsError(
                try await topicConnection.send(try mock.apnsRequest(providerToken: .some(try mock.providerToken(key: unrelatedKey)))),
                status: 403,
                reason: "UnrelatedKeyIdInToken"
            )
            expectAPNsError(
                try await topicConnection.send(
                    try mock.apnsRequest(providerToken: .some(try mock.providerToken(key: mock.sampleKey.signingKey)))),
                status: 403,
                reason: "UnrelatedKeyIdInToken"
            )
            expectAccepted(
                try await topicConnection.send(try mock.apnsRequest(providerToken: .some(try mock.providerToken(key: relatedKey)))))
            await topicConnection.close()
        }
    }

    @Test("a key restricted to the other environment", arguments: APNsReason.EnvironmentKeySpelling.allCases)
    func environmentKey(spelling: APNsReason.EnvironmentKeySpelling) async throws {
        try await withPushMock(configure: { $0.apns.environmentKeySpelling = spelling }) { mock in
            let productionKey = Self.register(mock, keyID: "PRODKEY001", environments: [.production])
            let jwt = try mock.providerToken(key: productionKey)
            expectAPNsError(
                try await mock.sendOnNewConnection(try mock.apnsRequest(providerToken: .some(jwt))),
                status: 403,
                reason: spelling == .observed ? "BadEnvironmentKeyInToken" : "BadEnvironmentKeyIdInToken"
            )
            expectAccepted(
                try await mock.sendOnNewConnection(try mock.apnsRequest(providerToken: .some(jwt)), authority: "api.push.apple.com"))
        }
    }

    @Test("topics allowed per key and per team")
    func topicsPerKey() async throws {
        try await withPushMock { mock in
            let limited = Self.register(mock, keyID: "LIMITED001", scope: .topic, bundleIDs: ["com.example.allowed"])
            let jwt = try mock.providerToken(key: limited)
            expectAccepted(
                try await mock.sendOnNewConnection(try mock.apnsRequest(topic: "com.example.allowed", providerToken: .some(jwt))))
            expectAccepted(
                try await mock.sendOnNewConnection(
                    try mock.apnsRequest(topic: "com.example.allowed.voip", pushType: "voip", providerToken: .some(jwt))
                )
            )
            expectAPNsError(
                try await mock.sendOnNewConnection(try mock.apnsRequest(topic: "com.example.other", providerToken: .some(jwt))),
                status: 403,
                reason: "InvalidProviderToken"
            )
            // Team-scoped keys are limited to the team's declared apps, once declared.
            mock.state.apnsKeys.setBundleIDs([mock.topic], forTeam: mock.sampleKey.teamID)
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            expectAPNsError(
                try await mock.sendOnNewConnection(try mock.apnsRequest(topic: "com.example.elsewhere")),
                status: 403,
                reason: "InvalidProviderToken"
            )
        }
    }

    @Test("--auth none accepts requests without credentials and records that")
    func authNone() async throws {
        try await withPushMock(configure: { $0.apns.authentication = .none }) { mock in
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest(providerToken: .none)))
            #expect(mock.recordings.records(limit: 1).first?.auth?.scheme == "none")
        }
    }

    // MARK: Certificates

    @Test("a single-topic certificate authenticates; its UID is the default topic")
    func singleTopicCertificate() async throws {
        try await withPushMock { mock in
            let certificate = try mock.issueClientCertificate(bundleID: "com.example.certapp")
            let connection = try await mock.connect(clientCertificate: certificate)
            // No apns-topic and no authorization: the certificate's topic is used.
            var request = HTTPRequestMessage(
                method: "POST", path: "/3/device/\(PushMockHarness.sampleDeviceToken)", body: Array(#"{"aps":{}}"#.utf8))
            expectAccepted(try await connection.send(request))
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.notification?.topic == "com.example.certapp")
            #expect(record.auth?.scheme == "certificate")
            #expect(record.connection.clientCertificateSubject?.contains("UID=com.example.certapp") == true)
            // The authorization header is ignored with certificates.
            request.headers.append(name: "authorization", value: "bearer garbage")
            expectAccepted(try await connection.send(request))
            expectAccepted(
                try await connection.send(try mock.apnsRequest(topic: "com.example.certapp.voip", pushType: "voip", providerToken: .none)))
            expectAccepted(
                try await connection.send(
                    try mock.apnsRequest(topic: "com.example.certapp.complication", pushType: "complication", providerToken: .none)))
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(topic: "com.example.other", providerToken: .none)),
                status: 400,
                reason: "BadTopic"
            )
            expectAPNsError(
                try await connection.send(
                    try mock.apnsRequest(topic: "com.example.certapp.location-query", pushType: "location", providerToken: .none)),
                status: 400,
                reason: "BadTopic"
            )
            await connection.close()
        }
    }

    @Test("a multi-topic certificate needs apns-topic and allows only its topics")
    func multiTopicCertificate() async throws {
        try await withPushMock { mock in
            let certificate = try mock.issueClientCertificate(
                bundleID: "com.example.multi",
                multiTopics: [
                    APNsCertificateTopic(topic: "com.example.multi", kinds: ["app"]),
                    APNsCertificateTopic(topic: "com.example.multi.voip", kinds: ["voip"]),
                    APNsCertificateTopic(topic: "com.example.second", kinds: ["app"]),
                ]
            )
            let connection = try await mock.connect(clientCertificate: certificate)
            let noTopic = HTTPRequestMessage(method: "POST", path: "/3/device/\(PushMockHarness.sampleDeviceToken)", body: Array("{}".utf8))
            expectAPNsError(try await connection.send(noTopic), status: 400, reason: "MissingTopic")
            expectAccepted(try await connection.send(try mock.apnsRequest(topic: "com.example.second", providerToken: .none)))
            expectAccepted(
                try await connection.send(try mock.apnsRequest(topic: "com.example.multi.voip", pushType: "voip", providerToken: .none)))
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(topic: "com.example.third", providerToken: .none)),
                status: 400,
                reason: "BadTopic"
            )
            await connection.close()
        }
    }

    @Test("a certificate for the other environment gets GOAWAY BadCertificateEnvironment")
    func wrongEnvironmentCertificate() async throws {
        try await withPushMock { mock in
            let certificate = try mock.issueClientCertificate(bundleID: "com.example.prodonly", environments: [.production])
            let connection = try await mock.connect(clientCertificate: certificate)
            do {
                _ = try await connection.send(try mock.apnsRequest(topic: "com.example.prodonly", providerToken: .none))
                Issue.record("expected the connection to go away")
            } catch let error as HTTP2ClientError {
                guard case .goAway(let goAway) = error.kind else {
                    Issue.record("expected GOAWAY, got \(error)")
                    return
                }
                #expect(goAway.errorCode == .noError)
                #expect(goAway.lastStreamID == 0)
                #expect(String(decoding: goAway.debugData, as: UTF8.self) == #"{"reason":"BadCertificateEnvironment"}"#)
            }
            await connection.closeFuture()
            #expect(!connection.isActive)
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.response.reason == "BadCertificateEnvironment")
            #expect(record.annotations["goAway"]?.contains("BadCertificateEnvironment") == true)
            // The same certificate is fine in production.
            let production = try await mock.connect(clientCertificate: certificate, authority: "api.push.apple.com")
            expectAccepted(try await production.send(try mock.apnsRequest(topic: "com.example.prodonly", providerToken: .none)))
            await production.close()
        }
    }

    @Test("a certificate from an untrusted CA fails the TLS handshake")
    func untrustedCertificate() async throws {
        try await withPushMock { mock in
            let strangerCA = try LocalPKI.makeCertificateAuthority(commonName: "Stranger CA")
            let stranger = try LocalPKI.makeAPNsClientCertificate(issuer: strangerCA, bundleID: "com.example.stranger")
            await #expect(throws: (any Error).self) {
                let connection = try await mock.connect(clientCertificate: stranger)
                _ = try await connection.send(try mock.apnsRequest(topic: "com.example.stranger", providerToken: .none))
            }
            #expect(mock.recordings.count == 0)
        }
    }

    @Test("a CA added through the control API is trusted by new connections")
    func addCertificateAuthorityAtRunTime() async throws {
        try await withPushMock(configure: { $0.clientCertificateAuthorityPEMs = [] }) { mock in
            let ca = try LocalPKI.makeCertificateAuthority(commonName: "Runtime CA")
            let certificate = try LocalPKI.makeAPNsClientCertificate(issuer: ca, bundleID: "com.example.runtime")
            let control = try await mock.connect(tls: false)
            var upload = HTTPRequestMessage(method: "POST", path: "/_pushmock/apns/certificate-authorities")
            upload.body = Array(try JSONSerialization.data(withJSONObject: ["pem": ca.certificatePEM]))
            let added = try await control.send(upload)
            #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
            await control.close()
            let connection = try await mock.connect(clientCertificate: certificate)
            expectAccepted(try await connection.send(try mock.apnsRequest(topic: "com.example.runtime", providerToken: .none)))
            await connection.close()
        }
    }
}
