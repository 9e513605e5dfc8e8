import Foundation
import PushMockAuth
import PushMockCore
import PushMockGateway
import PushMockSender
import PushMockTesting
import Synchronization
import Testing

/// Records the waits a sender asks for instead of sleeping (retry timing without wall time).
final class RecordedSleeps: Sendable {
    private let durations = Mutex<[Duration]>([])

    var sleep: RetrySleep {
        RetrySleep { duration in self.durations.withLock { $0.append(duration) } }
    }

    var all: [Duration] { durations.withLock { $0 } }
}

extension PushMockHarness {
    /// A sender configuration for this gateway: TLS with its CA, the trusted sample key, the
    /// gateway's clock, no jitter, recorded sleeps.
    func apnsConfiguration(
        authentication: APNsAuthentication? = nil,
        retry: RetryPolicy = RetryPolicy(jitter: 0),
        sleeps: RecordedSleeps = RecordedSleeps(),
        authority: String? = nil,
        configure: (inout APNsSenderConfiguration) -> Void = { _ in }
    ) throws -> APNsSenderConfiguration {
        var configuration = APNsSenderConfiguration(
            server: try .custom(url: "https://127.0.0.1:\(tlsPort)", authority: authority),
            authentication: authentication ?? .token(sampleKey.signingKey),
            trustRoots: .pem(credentials.certificateAuthorityPEM ?? ""),
            defaultTopic: topic,
            retry: retry,
            clock: state.clock,
            jitter: .constant(1),
            sleep: sleeps.sleep
        )
        configure(&configuration)
        return configuration
    }

    /// A sender configuration for this gateway's FCM side.
    func fcmConfiguration(
        retry: RetryPolicy = RetryPolicy(jitter: 0),
        sleeps: RecordedSleeps = RecordedSleeps(),
        validateOnly: Bool = false,
        configure: (inout FCMSenderConfiguration) -> Void = { _ in }
    ) throws -> FCMSenderConfiguration {
        var configuration = FCMSenderConfiguration(
            serviceAccount: serviceAccount.json,
            server: try SenderEndpoint(url: "https://127.0.0.1:\(tlsPort)"),
            trustRoots: .pem(credentials.certificateAuthorityPEM ?? ""),
            validateOnly: validateOnly,
            retry: retry,
            clock: state.clock,
            jitter: .constant(1),
            sleep: sleeps.sleep
        )
        configure(&configuration)
        return configuration
    }
}

/// A well-formed device token that differs per `index`.
func deviceToken(_ index: Int) -> String {
    let hex = String(index, radix: 16)
    return String(repeating: "0", count: 64 - hex.count) + hex
}

let alertPayload = APNsPayload(alert: .init(title: "Hello", body: "From the sender"))
