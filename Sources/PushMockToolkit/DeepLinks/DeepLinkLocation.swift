public import PushMockCore
public import PushMockJSON

/// A place in a notification's body where a deep link may be: a JSON path, evaluated on the
/// APNs payload or on the FCM `SendMessageRequest` body (`{"message": {…}}`).
///
/// Paths use the ``PushMockJSON/JSONPath`` subset (`$.deep_link`, `$.actions[*].link`,
/// `$.aps['url-args']`); `*` visits every member or element. Under a wildcard, and for
/// ``urlsOnly`` locations, only strings that look like URLs (`scheme:…`) count as links — an
/// `actions` array may hold plain action identifiers, and Android's `click_action` is usually an
/// intent action such as `OPEN_LAB`. Elsewhere every non-null value is a link, and a value that is
/// not a string is reported as malformed.
public struct DeepLinkLocation: Sendable, Hashable, CustomStringConvertible {
    public let path: JSONPath
    public let platform: Platform
    /// Strings without a scheme are not links here (not reported as malformed).
    public let urlsOnly: Bool

    /// A location from a path expression; throws ``DeepLinkError/Code/invalidLocation``.
    public init(_ path: String, platform: Platform, urlsOnly: Bool = false) throws(DeepLinkError) {
        do {
            self.path = try JSONPath(path)
        } catch {
            throw DeepLinkError(.invalidLocation, error.description)
        }
        self.platform = platform
        self.urlsOnly = urlsOnly
    }

    public init(path: JSONPath, platform: Platform, urlsOnly: Bool = false) {
        self.path = path
        self.platform = platform
        self.urlsOnly = urlsOnly
    }

    /// `apns $.deep_link`, `fcm $.message.android.notification.click_action (URLs only)`.
    public var description: String {
        "\(platform) \(Self.format(path.components))\(urlsOnly ? " (URLs only)" : "")"
    }

    // MARK: Defaults

    /// The keys apps conventionally use for a notification's link.
    static let linkKeys = ["deep_link", "deeplink", "deepLink", "deepLinkPath", "url", "link"]

    /// Link keys at the top level of an APNs payload (custom keys go beside `aps`), and action
    /// links: `actions` as a map of action id → URL, or as objects with a `link`/`url`/`deep_link`.
    ///
    /// `aps.url-args` is deliberately absent: it holds the values Safari substitutes into a
    /// website push package's `urlFormatString`, not a URL, and cannot be resolved without it.
    public static let apnsDefaults: [DeepLinkLocation] = appPayloadLocations(under: [], platform: .apns)

    /// FCM: the link keys in `message.data` (and the `android`/`webpush` `data` overrides),
    /// `message.webpush.fcm_options.link`, `message.android.notification.click_action` (URLs only),
    /// and the APNs locations inside `message.apns.payload` — each in both field spellings FCM
    /// accepts (`fcm_options`/`fcmOptions`, `click_action`/`clickAction`).
    public static let fcmDefaults: [DeepLinkLocation] = {
        let message: [JSONPath.Component] = [.key("message")]
        var locations: [DeepLinkLocation] = []
        for data in [message + [.key("data")], message + [.key("android"), .key("data")], message + [.key("webpush"), .key("data")]] {
            locations += linkKeys.map { DeepLinkLocation(path: JSONPath(components: data + [.key($0)]), platform: .fcm) }
        }
        for options in ["fcm_options", "fcmOptions"] {
            let path = message + [.key("webpush"), .key(options), .key("link")]
            locations.append(DeepLinkLocation(path: JSONPath(components: path), platform: .fcm))
        }
        for clickAction in ["click_action", "clickAction"] {
            let path = message + [.key("android"), .key("notification"), .key(clickAction)]
            locations.append(DeepLinkLocation(path: JSONPath(components: path), platform: .fcm, urlsOnly: true))
        }
        locations += appPayloadLocations(under: message + [.key("apns"), .key("payload")], platform: .fcm)
        return locations
    }()

    /// Expo: the link keys in each message's `data`, for a single message object (`$.data.url`)
    /// and for an array of messages (`$[*].data.url`, URLs only as under any wildcard).
    public static let expoDefaults: [DeepLinkLocation] = {
        var locations = linkKeys.map { DeepLinkLocation(path: JSONPath(components: [.key("data"), .key($0)]), platform: .expo) }
        locations += linkKeys.map { DeepLinkLocation(path: JSONPath(components: [.wildcard, .key("data"), .key($0)]), platform: .expo) }
        return locations
    }()

    /// The platforms whose payload layouts link locations are written for (a route table has a
    /// `linkLocations` list for each).
    public static let platforms: [Platform] = [.apns, .fcm, .expo]

    /// ``apnsDefaults``, ``fcmDefaults``, then ``expoDefaults``.
    public static let defaults: [DeepLinkLocation] = apnsDefaults + fcmDefaults + expoDefaults

    private static func appPayloadLocations(under base: [JSONPath.Component], platform: Platform) -> [DeepLinkLocation] {
        var locations = linkKeys.map { DeepLinkLocation(path: JSONPath(components: base + [.key($0)]), platform: platform) }
        let actions = base + [.key("actions"), .wildcard]
        locations.append(DeepLinkLocation(path: JSONPath(components: actions), platform: platform, urlsOnly: true))
        for key in ["link", "url", "deep_link"] {
            locations.append(DeepLinkLocation(path: JSONPath(components: actions + [.key(key)]), platform: platform))
        }
        return locations
    }

    // MARK: Paths for people

    /// `$.message.data.deep_link`, `$.actions[0].link`, `$.aps['url-args']`: dot notation where
    /// the name allows it.
    static func format(_ components: [JSONPath.Component]) -> String {
        var text = "$"
        for component in components {
            switch component {
            case .key(let name):
                let plain =
                    !name.isEmpty
                    && name.unicodeScalars.allSatisfy {
                        $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-")
                    }
                if plain {
                    text += ".\(name)"
                } else {
                    text += "['"
                    for character in name {
                        if character == "\\" || character == "'" { text += "\\" }
                        text.append(character)
                    }
                    text += "']"
                }
            case .index(let index):
                text += "[\(index)]"
            case .wildcard:
                text += "[*]"
            }
        }
        return text
    }
}
