import Foundation
import PushMockAuth
@_spi(Locking) import PushMockCore
import PushMockGateway
import PushMockSender
import PushMockTesting
import Testing

/// Records the waits a sender asks for instead of sleeping (retry timing without wall time).
final class RecordedSleeps: Sendable {
    private let durations = SanitizerVisibleMutex<[Duration]>([])

    var sleep: RetrySleep {
        RetrySleep { duration in self.durations.withLock { $0.append(duration) } }
    }

    var all: [Duration] { durations.withLock { $0 } }
}

extension PushMockHarness {
    /// The library's configuration for this gateway, with no jitter and recorded sleeps.
    func apnsConfiguration(
        authentication: APNsAuthentication? = nil,
        retry: RetryPolicy = RetryPolicy(jitter: 0),
        sleeps: RecordedSleeps = RecordedSleeps(),
        authority: String? = nil,
        configure: (inout APNsSenderConfiguration) -> Void = { _ in }
    ) throws -> APNsSenderConfiguration {
        var configuration = try apnsSenderConfiguration(authentication: authentication, retry: retry)
        if let authority {
            configuration.server = try .custom(url: "https://127.0.0.1:\(tlsPort)", authority: authority)
        }
        configuration.jitter = .constant(1)
        configuration.sleep = sleeps.sleep
        configure(&configuration)
        return configuration
    }

    /// The library's FCM configuration for this gateway, with no jitter and recorded sleeps.
    func fcmConfiguration(
        retry: RetryPolicy = RetryPolicy(jitter: 0),
        sleeps: RecordedSleeps = RecordedSleeps(),
        validateOnly: Bool = false,
        configure: (inout FCMSenderConfiguration) -> Void = { _ in }
    ) throws -> FCMSenderConfiguration {
        var configuration = try fcmSenderConfiguration(retry: retry, validateOnly: validateOnly)
        configuration.jitter = .constant(1)
        configuration.sleep = sleeps.sleep
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
