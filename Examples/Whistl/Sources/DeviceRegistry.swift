public import Foundation
import Synchronization

/// Whistl's table of push tokens (in production, a database table the apps post to on every
/// launch and on `onNewToken`). An iPhone registers its APNs device token and, through the
/// Firebase SDK, an FCM token too — the second road the sender falls back to.
public final class DeviceRegistry: Sendable {
    public enum Platform: String, Sendable { case ios, android }

    public struct Registration: Sendable, Hashable {
        public var userID: String
        public var platform: Platform
        public var timeZone: TimeZone
        public var apnsToken: String?
        public var fcmToken: String?

        public init(userID: String, platform: Platform, timeZone: TimeZone, apnsToken: String? = nil, fcmToken: String? = nil) {
            self.userID = userID
            self.platform = platform
            self.timeZone = timeZone
            self.apnsToken = apnsToken
            self.fcmToken = fcmToken
        }
    }

    private let registrations = Mutex<[String: Registration]>([:])

    public init(_ registrations: [Registration] = []) {
        for registration in registrations { register(registration) }
    }

    /// The app registered (or re-registered after a reinstall).
    public func register(_ registration: Registration) {
        registrations.withLock { $0[registration.userID] = registration }
    }

    /// The app's `didRegisterForRemoteNotifications` / `onNewToken` with a refreshed token.
    public func refreshToken(_ token: String, for userID: String) {
        registrations.withLock { all in
            guard var registration = all[userID] else { return }
            if token.contains(":") { registration.fcmToken = token } else { registration.apnsToken = token }
            all[userID] = registration
        }
    }

    /// The service said the token is gone (410 / UNREGISTERED): never send to it again.
    public func forget(token: String) {
        registrations.withLock { all in
            for (id, registration) in all {
                var changed = registration
                if registration.apnsToken == token { changed.apnsToken = nil }
                if registration.fcmToken == token { changed.fcmToken = nil }
                all[id] = changed
            }
        }
    }

    public func registration(for userID: String) -> Registration? {
        registrations.withLock { $0[userID] }
    }
}
