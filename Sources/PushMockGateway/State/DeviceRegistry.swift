public import PushMockCore
import Synchronization

/// What the gateway knows about one APNs device token.
public struct APNsDeviceRecord: Sendable, Hashable, Codable {
    /// The lifecycle state of a token.
    public enum State: Sendable, Hashable, Codable {
        /// Accepts notifications.
        case active
        /// Uninstalled: from `at` on, APNs answers 410 `Unregistered` with `timestamp` = `at`.
        case unregistered(at: Timestamp)
        /// Expired: from `at` on, APNs answers 410 `ExpiredToken`.
        case expired(at: Timestamp)
    }

    /// The token in canonical (lower-case hex) form.
    public var token: String
    /// The bundle ID of the app the token belongs to.
    public var bundleID: String
    /// The environment that issued the token; the other one answers `BadDeviceToken`.
    public var environment: APNsEnvironment
    /// Lifecycle state.
    public var state: State

    public init(token: String, bundleID: String, environment: APNsEnvironment = .sandbox, state: State = .active) {
        self.token = APNsDeviceTokenFormat.canonical(token)
        self.bundleID = bundleID
        self.environment = environment
        self.state = state
    }

    /// The 410 error this token answers at `now`, if it is no longer valid.
    public func goneError(at now: Timestamp) -> APNsError? {
        switch state {
        case .active:
            return nil
        case .unregistered(let at):
            return at <= now ? APNsError(.unregistered, timestamp: at) : nil
        case .expired(let at):
            return at <= now ? APNsError(.expiredToken, timestamp: at) : nil
        }
    }
}

/// The registry of known APNs device tokens. Unknown well-formed tokens are accepted unless
/// the gateway runs with strict tokens.
///
/// Shared by every connection; a `Mutex` keeps each lookup a short critical section.
public final class DeviceRegistry: Sendable {
    private let devices: Mutex<[String: APNsDeviceRecord]>

    public init(_ records: [APNsDeviceRecord] = []) {
        var initial: [String: APNsDeviceRecord] = [:]
        for record in records {
            initial[record.token] = record
        }
        self.devices = Mutex(initial)
    }

    /// Adds or replaces a token.
    public func register(_ record: APNsDeviceRecord) {
        devices.withLock { $0[record.token] = record }
    }

    /// Looks a token up (any case).
    public func lookup(_ token: String) -> APNsDeviceRecord? {
        let key = APNsDeviceTokenFormat.canonical(token)
        return devices.withLock { $0[key] }
    }

    /// Changes a token's state; returns the updated record, or `nil` if unknown.
    @discardableResult
    public func setState(_ state: APNsDeviceRecord.State, for token: String) -> APNsDeviceRecord? {
        let key = APNsDeviceTokenFormat.canonical(token)
        return devices.withLock { devices in
            guard var record = devices[key] else { return nil }
            record.state = state
            devices[key] = record
            return record
        }
    }

    /// Removes a token; returns whether it was known.
    @discardableResult
    public func remove(_ token: String) -> Bool {
        let key = APNsDeviceTokenFormat.canonical(token)
        return devices.withLock { $0.removeValue(forKey: key) != nil }
    }

    /// Every registered token, sorted.
    public var all: [APNsDeviceRecord] {
        devices.withLock { Array($0.values) }.sorted { $0.token < $1.token }
    }

    /// Forgets every token.
    public func removeAll() {
        devices.withLock { $0.removeAll() }
    }
}
