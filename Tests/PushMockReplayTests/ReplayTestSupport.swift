import Foundation
import PushMockAuth
import PushMockCore
import PushMockGateway
import PushMockRecording
import PushMockSender
import PushMockTesting
import Testing

extension PushMockHarness {
    /// A sender configuration for this gateway with the given credentials (the sample key by
    /// default), no retries so outcomes compare 1:1.
    func apnsConfiguration(authentication: APNsAuthentication? = nil) throws -> APNsSenderConfiguration {
        APNsSenderConfiguration(
            server: try .custom(url: "https://127.0.0.1:\(tlsPort)"),
            authentication: authentication ?? .token(sampleKey.signingKey),
            trustRoots: .pem(credentials.certificateAuthorityPEM ?? ""),
            retry: RetryPolicy(maximumAttempts: 1),
            clock: state.clock
        )
    }

    /// An FCM sender configuration for this gateway (the sample service account by default).
    func fcmConfiguration(account: ServiceAccountJSON? = nil) throws -> FCMSenderConfiguration {
        FCMSenderConfiguration(
            serviceAccount: account ?? serviceAccount.json,
            server: try SenderEndpoint(url: "https://127.0.0.1:\(tlsPort)"),
            tokenURI: "https://127.0.0.1:\(tlsPort)/token",
            trustRoots: .pem(credentials.certificateAuthorityPEM ?? ""),
            retry: RetryPolicy(maximumAttempts: 1),
            clock: state.clock
        )
    }

    /// A fresh APNs key, trusted by this gateway for any of the sample team's topics.
    func trustNewKey(keyID: String = "REPLAYKEY1") -> APNsSigningKey {
        let key = APNsSigningKey.generate(keyID: keyID, teamID: sampleKey.teamID)
        state.apnsKeys.register(APNsKeyRecord(keyID: keyID, teamID: key.teamID, publicKey: key.publicKey))
        return key
    }
}

/// A temporary journal path, removed by the caller.
func temporaryJournalPath() -> String {
    NSTemporaryDirectory() + "pushmock-replay-\(UUID().uuidString).jsonl"
}

/// A well-formed device token that differs per `index`.
func deviceToken(_ index: Int) -> String {
    let hex = String(index, radix: 16)
    return String(repeating: "0", count: 64 - hex.count) + hex
}
