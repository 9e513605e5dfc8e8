/// The value of the `apns-push-type` header.
///
/// Each push type requires a particular suffix on the `apns-topic` (Apple, "Sending notification
/// requests to APNs", table "Know when to use push types"), and VoIP pushes get a larger payload
/// limit (5120 instead of 4096 bytes).
public struct APNsPushType: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline
    enum Known: String, CaseIterable, Sendable {
        case alert
        case background
        case complication
        case controls
        case fileprovider
        case liveactivity
        case location
        case mdm
        case pushtotalk
        case voip
        case widgets
    }

    @usableFromInline
    let known: Known

    @usableFromInline
    init(_ known: Known) { self.known = known }

    /// Parses a header value. Values are matched exactly (Apple documents them in lower case);
    /// anything else is answered with `InvalidPushType`.
    public init?(rawValue: String) {
        guard let known = Known(rawValue: rawValue) else { return nil }
        self.known = known
    }

    /// Parses a header value from raw bytes without allocating.
    @inlinable
    public init?(bytes: some Collection<UInt8>) {
        // Compare against static strings: no lookup table, no reference counting.
        func matches(_ literal: StaticString) -> Bool {
            guard literal.utf8CodeUnitCount == bytes.count else { return false }
            var offset = 0
            for byte in bytes {
                if byte != literal.utf8Start[offset] { return false }
                offset += 1
            }
            return true
        }
        if matches("alert") {
            self.init(.alert)
        } else if matches("background") {
            self.init(.background)
        } else if matches("voip") {
            self.init(.voip)
        } else if matches("liveactivity") {
            self.init(.liveactivity)
        } else if matches("complication") {
            self.init(.complication)
        } else if matches("controls") {
            self.init(.controls)
        } else if matches("fileprovider") {
            self.init(.fileprovider)
        } else if matches("location") {
            self.init(.location)
        } else if matches("mdm") {
            self.init(.mdm)
        } else if matches("pushtotalk") {
            self.init(.pushtotalk)
        } else if matches("widgets") {
            self.init(.widgets)
        } else {
            return nil
        }
    }

    /// The header value.
    public var rawValue: String { known.rawValue }
    public var description: String { known.rawValue }

    /// The suffix the `apns-topic` must carry after the bundle ID, `""` when the topic is the
    /// bare bundle ID, and `nil` for `mdm`, whose topic comes from the MDM certificate.
    public var topicSuffix: String? {
        switch known {
        case .alert, .background: return ""
        case .complication: return ".complication"
        case .controls: return ".push-type.controls"
        case .fileprovider: return ".pushkit.fileprovider"
        case .liveactivity: return ".push-type.liveactivity"
        case .location: return ".location-query"
        case .mdm: return nil
        case .pushtotalk: return ".voip-ptt"
        case .voip: return ".voip"
        case .widgets: return ".push-type.widgets"
        }
    }

    /// The largest payload APNs accepts for this push type, in bytes.
    public var maximumPayloadSize: Int {
        known == .voip ? 5120 : 4096
    }

    /// Whether Apple only allows this push type on token-based connections.
    public var requiresTokenAuthentication: Bool {
        known == .location
    }

    /// Shows an alert, plays a sound or badges the icon. Topic: the bundle ID.
    public static let alert = Self(.alert)
    /// Delivers content in the background; must use priority 5. Topic: the bundle ID.
    public static let background = Self(.background)
    /// Updates a watchOS complication. Topic: `<bundle ID>.complication`.
    public static let complication = Self(.complication)
    /// Updates a WidgetKit control. Topic: `<bundle ID>.push-type.controls`.
    public static let controls = Self(.controls)
    /// Signals a File Provider extension. Topic: `<bundle ID>.pushkit.fileprovider`.
    public static let fileprovider = Self(.fileprovider)
    /// Updates a Live Activity. Topic: `<bundle ID>.push-type.liveactivity`.
    public static let liveactivity = Self(.liveactivity)
    /// Asks a Location Push Service extension for the device location (token auth only).
    /// Topic: `<bundle ID>.location-query`.
    public static let location = Self(.location)
    /// Tells a managed device to contact its MDM server. Topic: from the MDM certificate.
    public static let mdm = Self(.mdm)
    /// Push-to-talk. Topic: `<bundle ID>.voip-ptt`.
    public static let pushtotalk = Self(.pushtotalk)
    /// A VoIP call (PushKit); payload limit 5120 bytes. Topic: `<bundle ID>.voip`.
    public static let voip = Self(.voip)
    /// Reloads WidgetKit widgets. Topic: `<bundle ID>.push-type.widgets`.
    public static let widgets = Self(.widgets)

    /// All eleven push types Apple documents.
    public static let all: [APNsPushType] = Known.allCases.map(APNsPushType.init)

    /// The push type whose topic suffix a topic ends with, used when `apns-push-type` is absent.
    ///
    /// Apple says a missing header may lead to errors or delays; the gateway infers the type
    /// from the topic (longest matching suffix, otherwise `alert`) and records that it did.
    public static func inferred(fromTopic topic: some StringProtocol) -> APNsPushType {
        var best: APNsPushType = .alert
        var bestLength = 0
        for type in all {
            guard let suffix = type.topicSuffix, !suffix.isEmpty else { continue }
            if suffix.count > bestLength, topic.hasSuffix(suffix), topic.count > suffix.count {
                best = type
                bestLength = suffix.count
            }
        }
        return best
    }

    /// The bundle ID a topic names for this push type: the topic without the type's suffix.
    /// Returns `nil` when the topic does not end with the suffix this push type requires.
    public func bundleID(fromTopic topic: String) -> String? {
        guard let suffix = topicSuffix else { return topic }
        if suffix.isEmpty { return topic }
        guard topic.hasSuffix(suffix), topic.utf8.count > suffix.utf8.count else { return nil }
        return String(topic.dropLast(suffix.count))
    }
}
