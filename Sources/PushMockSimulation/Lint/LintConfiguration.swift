/// Which apps hold the Critical Alerts entitlement
/// (`com.apple.developer.usernotifications.critical-alerts`), which Apple grants on request.
public enum CriticalAlertsEntitlement: Sendable, Hashable {
    /// No app: every critical alert is reported (the default, because the entitlement is rare).
    case none
    /// Every app: critical alerts are never reported.
    case all
    /// Only these bundle IDs (`com.example.app`, without push-type suffixes).
    case bundleIDs(Set<String>)

    /// Whether the app `bundleID` (`nil`: unknown) holds the entitlement.
    public func isGranted(to bundleID: String?) -> Bool {
        switch self {
        case .none: return false
        case .all: return true
        case .bundleIDs(let granted): return bundleID.map { granted.contains($0) } ?? false
        }
    }
}

/// Settings of ``APNsLinter`` and ``FCMLinter``. All defaults describe an ordinary app.
public struct LintConfiguration: Sendable, Hashable {
    /// Apps allowed to send critical alerts. Default: ``CriticalAlertsEntitlement/none``.
    public var criticalAlerts: CriticalAlertsEntitlement
    /// Payload keys whose `http(s)://` string value is taken to be an image or attachment the
    /// app downloads in a service extension. A dot descends into a top-level object
    /// (`fcm_options.image`). There is no standard key; the default lists the common ones.
    public var imageURLKeys: [String] {
        didSet {
            imageURLPaths = Self.paths(imageURLKeys)
            imageURLRoots = Set(imageURLPaths.compactMap(\.first))
        }
    }
    /// Rules that never report. Default: none.
    public var disabledCodes: Set<LintCode>

    /// ``imageURLKeys`` split once, so the hot path does not split strings.
    private(set) var imageURLPaths: [[String]]
    /// The first key of every path: one set lookup per top-level payload key decides whether
    /// the paths need walking at all (they usually do not).
    private(set) var imageURLRoots: Set<String>

    /// The defaults, built once (the linters' default argument, so a call without a
    /// configuration does not rebuild the key paths).
    public static let standard = LintConfiguration()

    /// The keys ``imageURLKeys`` holds by default.
    public static let defaultImageURLKeys = [
        "image", "image-url", "image_url", "imageUrl", "imageURL",
        "attachment-url", "attachment_url", "attachmentUrl", "attachmentURL",
        "media-url", "media_url", "mediaUrl", "mediaURL",
        "fcm_options.image",
    ]

    public init(
        criticalAlerts: CriticalAlertsEntitlement = .none,
        imageURLKeys: [String] = LintConfiguration.defaultImageURLKeys,
        disabledCodes: Set<LintCode> = []
    ) {
        self.criticalAlerts = criticalAlerts
        self.imageURLKeys = imageURLKeys
        self.disabledCodes = disabledCodes
        self.imageURLPaths = Self.paths(imageURLKeys)
        self.imageURLRoots = Set(imageURLPaths.compactMap(\.first))
    }

    private static func paths(_ keys: [String]) -> [[String]] {
        keys.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
    }
}
