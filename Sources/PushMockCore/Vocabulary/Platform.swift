/// The service an exchange belongs to: one of the push services the gateway impersonates, or
/// one of Google's supporting endpoints. It is the `platform` of records, fault matches and
/// queries; JSON form `"apns"`, `"fcm"`, `"expo"`, `"oauth"`, `"iid"` or `"unknown"`.
///
/// Only the codecs spell these strings; everything else compares typed values.
public struct Platform: Hashable, Sendable, Comparable, CustomStringConvertible, StringCodedValue {
    enum Value: String, Hashable, Sendable, CaseIterable {
        case apns
        case fcm
        case expo
        case oauth
        case iid
        case unknown
    }

    let value: Value

    /// Apple Push Notification service (`POST /3/device/<token>`).
    public static let apns = Self(value: .apns)
    /// Firebase Cloud Messaging HTTP v1 (`messages:send`).
    public static let fcm = Self(value: .fcm)
    /// The Expo push service (`/--/api/v2/push/send`, `getReceipts`).
    public static let expo = Self(value: .expo)
    /// Google's OAuth2 token endpoint (service-account JWT grant).
    public static let oauth = Self(value: .oauth)
    /// Topic management: Google's Instance ID topic API (`iid/v1:batchAdd|batchRemove`) and
    /// its successor, FCM's topic-subscription API (`projects.registrations.topicSubscriptions`).
    public static let iid = Self(value: .iid)
    /// A path no impersonated service serves (answered as APNs answers it: 404 `BadPath`).
    public static let unknown = Self(value: .unknown)

    /// The push services, whose exchanges carry notifications, in a stable order.
    public static let pushServices: [Self] = [.apns, .fcm, .expo]
    /// Every platform a record can have.
    public static let all: [Self] = Value.allCases.map(Self.init(value:))

    private init(value: Value) { self.value = value }

    /// The platform spelled `rawValue` (case-insensitive).
    public init?(rawValue: String) {
        guard let value = Value(rawValue: rawValue.lowercased()) else { return nil }
        self.value = value
    }

    /// A push service spelled `rawValue`; `nil` for the supporting endpoints and unknown names.
    public init?(pushService rawValue: String) {
        guard let platform = Self(rawValue: rawValue), platform.isPushService else { return nil }
        self = platform
    }

    public var rawValue: String { value.rawValue }
    public var description: String { value.rawValue }

    /// Whether exchanges of this platform carry a notification (APNs, FCM, Expo).
    public var isPushService: Bool {
        switch value {
        case .apns, .fcm, .expo: return true
        case .oauth, .iid, .unknown: return false
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public static var expectedValues: String { "apns, fcm, expo, oauth, iid or unknown" }
}

extension Platform {
    /// This platform if it is a push service, else `nil` (for the checks that read payloads).
    public var pushService: Platform? { isPushService ? self : nil }
}

extension Platform {
    /// How people write the service's name: `APNs`, `FCM`, `Expo`, `OAuth`, `IID`.
    public var displayName: String {
        switch value {
        case .apns: return "APNs"
        case .fcm: return "FCM"
        case .expo: return "Expo"
        case .oauth: return "OAuth"
        case .iid: return "IID"
        case .unknown: return "unknown"
        }
    }
}
