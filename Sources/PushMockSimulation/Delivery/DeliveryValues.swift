public import PushMockCore

/// Which push service a simulated device is reached through.
public struct PushService: Hashable, Sendable, Comparable, CustomStringConvertible, StringCodedValue {
    public static let expectedValues = "apns, fcm or expo"

    enum Value: String, Hashable, Sendable {
        case apns
        case fcm
        case expo
    }

    let value: Value

    /// Apple Push Notification service (tokens are canonical lower-case hex).
    public static let apns = PushService(value: .apns)
    /// Firebase Cloud Messaging (registration tokens or installation IDs).
    public static let fcm = PushService(value: .fcm)

    /// The Expo push service (`ExponentPushToken[…]`), which relays to APNs or FCM: the device
    /// follows the storage rules of the platform the token was registered for.
    public static let expo = PushService(value: .expo)

    public static let all: [PushService] = [.apns, .fcm, .expo]

    public init?(rawValue: String) {
        guard let value = Value(rawValue: rawValue.lowercased()) else { return nil }
        self.value = value
    }

    private init(value: Value) { self.value = value }

    public var rawValue: String { value.rawValue }
    public var description: String { value.rawValue }

    /// One byte per service (the device table's keys).
    var code: UInt8 {
        switch value {
        case .apns: return 1
        case .fcm: return 2
        case .expo: return 3
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One simulated device: the push service and the token it registered with.
public struct DeviceAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// For APNs the canonical (lower-case hex) token; for FCM the token as issued.
    public var token: String {
        didSet { digest = Self.digest(of: token) }
    }
    /// A 64-bit mix of the token's bytes, computed once: every delivery looks its device up,
    /// and hashing a 64-byte token with `Hasher` per lookup (then comparing it with every
    /// candidate) was a quarter of delivery simulation's instructions.
    private(set) var digest: UInt64
    public var service: PushService

    public init(service: PushService, token: String) {
        self.service = service
        self.token = service == .apns ? APNsDeviceTokenFormat.canonical(token) : token
        self.digest = Self.digest(of: self.token)
    }

    /// An APNs device, from a token already in canonical form.
    public init(apnsToken: APNsDeviceToken) {
        self.service = .apns
        self.token = apnsToken.rawValue
        self.digest = Self.digest(of: self.token)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.service, lhs.token) < (rhs.service, rhs.token)
    }

    // `Hasher` (seeded per process) mixes the digest, so tables stay randomised; equal tokens
    // are equal bytes (APNs tokens are canonical, the others are compared as issued), so they
    // have equal digests.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(service)
        hasher.combine(digest)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        // Equal digests first: unequal tokens almost never get here. Then String's `==`, which
        // compares the bytes of ASCII tokens (the only kind there is); it would call two
        // canonically equivalent non-ASCII spellings equal, but only after their digests —
        // hashes of the bytes — collided, so equal addresses still hash alike.
        lhs.digest == rhs.digest && lhs.service == rhs.service && lhs.token == rhs.token
    }

    /// The digest of `token`'s UTF-8 bytes under this process's key.
    static func digest(of token: String) -> UInt64 {
        let key = digestKey
        if let digest = token.utf8.withContiguousStorageIfAvailable({ digest(of: UnsafeRawBufferPointer($0), key: key) }) {
            return digest
        }
        return Array(token.utf8).withUnsafeBytes { digest(of: $0, key: key) }
    }

    /// The token's bytes, sixteen at a time, each pair of words folded into the state by one
    /// full-width multiply (the high and low halves of the 128-bit product xor-ed, as in
    /// wyhash), then SplitMix64's finaliser; keyed with a per-process random key. The
    /// simulator's device table uses it as the hash, and tokens come from requests, so nobody
    /// should be able to choose tokens that all land in one place. (The SplitMix finaliser on
    /// every word, which this replaced, was 230 instructions for an APNs token; this is a
    /// quarter of that.)
    static func digest(of bytes: UnsafeRawBufferPointer, key: UInt64) -> UInt64 {
        // A multiply and a rotate alone per word let anyone write colliding tokens (flipping a
        // word's top bit changed the state by a constant whatever the key); a full-width
        // product of two keyed words does not have that weakness.
        let evenKey = key
        let oddKey = mix(key ^ 0x6A09_E667_F3BC_C909)
        var state = mix(key ^ UInt64(truncatingIfNeeded: bytes.count))
        var offset = 0
        while offset + 16 <= bytes.count {
            let even = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            let odd = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
            state = fold(even ^ evenKey ^ state, odd ^ oddKey)
            offset += 16
        }
        if offset < bytes.count {
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { words in
                words.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            }
            state = fold(words.0 ^ evenKey ^ state, words.1 ^ oddKey)
        }
        return mix(state)
    }

    @inline(__always)
    private static func fold(_ lhs: UInt64, _ rhs: UInt64) -> UInt64 {
        let product = lhs.multipliedFullWidth(by: rhs)
        return product.high ^ product.low
    }

    private static let digestKey = UInt64.random(in: .min ... .max)

    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public var description: String { "\(service)/\(token)" }
}

/// Whether a device can be reached.
///
/// - `online`: every notification is delivered at once.
/// - `idle`: the device sleeps (iOS low power, Android Doze): high priority is delivered at
///   once, normal and low priority wait in the service's store as if the device were offline.
/// - `offline`: everything waits in the service's store, under its storage rules.
public struct Connectivity: Hashable, Sendable, CustomStringConvertible, StringCodedValue {
    public static let expectedValues = "online, idle or offline"

    enum Value: String, Hashable, Sendable, CaseIterable {
        case online
        case idle
        case offline
    }

    let value: Value

    public static let online = Connectivity(value: .online)
    public static let idle = Connectivity(value: .idle)
    public static let offline = Connectivity(value: .offline)

    public static let all: [Connectivity] = [.online, .idle, .offline]

    public init?(rawValue: String) {
        guard let value = Value(rawValue: rawValue.lowercased()) else { return nil }
        self.value = value
    }

    private init(value: Value) { self.value = value }

    public var rawValue: String { value.rawValue }
    public var description: String { value.rawValue }

    /// Whether a notification of `priority` reaches the device now.
    public func reaches(_ priority: DeliveryPriority) -> Bool {
        switch value {
        case .online: return true
        case .idle: return priority == .high
        case .offline: return false
        }
    }

}

/// How urgently the service tries to deliver: APNs 10 / FCM `HIGH` are `high`, APNs 5 / FCM
/// `NORMAL` are `normal`, APNs 1 is `low`.
public struct DeliveryPriority: Hashable, Sendable, CustomStringConvertible {
    enum Value: String, Hashable, Sendable {
        case high
        case normal
        case low
    }

    let value: Value

    public static let high = DeliveryPriority(value: .high)
    public static let normal = DeliveryPriority(value: .normal)
    public static let low = DeliveryPriority(value: .low)

    private init(value: Value) { self.value = value }

    /// The priority an APNs `apns-priority` value stands for.
    public init(_ priority: APNsPriority) {
        switch priority.rawValue {
        case 10: self = .high
        case 5: self = .normal
        default: self = .low
        }
    }

    public var rawValue: String { value.rawValue }
    public var description: String { value.rawValue }
}

/// How long the service keeps trying.
public enum DeliveryExpiry: Hashable, Sendable {
    /// Deliver now or never (APNs `apns-expiration: 0`, FCM `ttl: "0s"`): never stored.
    case immediately
    /// Stored (if needed) until this instant; at it, the notification expires.
    case at(Timestamp)
}

/// Where a notification stands on its way to the device. Final states are `delivered`,
/// `expired`, `collapsed` and `dropped`; a `delivered` notification can still become
/// `collapsed` when a later one with the same collapse identifier replaces it on screen.
public struct DeliveryStatus: Hashable, Sendable, CustomStringConvertible, StringCodedValue {
    public static let expectedValues = "delivered, stored, expired, collapsed or dropped"

    enum Value: String, Hashable, Sendable, CaseIterable {
        case delivered
        case stored
        case expired
        case collapsed
        case dropped
    }

    let value: Value

    /// On the device.
    public static let delivered = DeliveryStatus(value: .delivered)
    /// Held by the service until the device is reachable.
    public static let stored = DeliveryStatus(value: .stored)
    /// Its expiration (APNs) or TTL (FCM) passed while it was stored.
    public static let expired = DeliveryStatus(value: .expired)
    /// Replaced by a later notification with the same collapse identifier (in the store, or on
    /// screen).
    public static let collapsed = DeliveryStatus(value: .collapsed)
    /// Discarded by the service for another reason (expiration 0 while unreachable, APNs keeps
    /// one per app, FCM's 100-message and 4-collapse-key limits).
    public static let dropped = DeliveryStatus(value: .dropped)

    public static let all: [DeliveryStatus] = Value.allCases.map(DeliveryStatus.init(value:))

    public init?(rawValue: String) {
        guard let value = Value(rawValue: rawValue.lowercased()) else { return nil }
        self.value = value
    }

    private init(value: Value) { self.value = value }

    public var rawValue: String { value.rawValue }
    public var description: String { value.rawValue }

}

/// The storage rules of the service that holds a device's notifications while it cannot be
/// reached. Sources are listed in `docs/delivery-simulation.md`.
public enum StoragePolicy: String, Hashable, Sendable, Codable {
    /// APNs quality of service: one stored notification per app (the newest); a notification
    /// with `apns-expiration: 0` is never stored; without the header it is kept up to 30 days.
    case apns
    /// FCM for Android and web: up to 100 non-collapsible messages (beyond that all are
    /// discarded and the app is told with `onDeletedMessages`), at most 4 collapse keys, TTL up
    /// to 28 days, `ttl: "0s"` never stored.
    case fcm
}
