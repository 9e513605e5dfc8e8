/// The kind of device an FCM message is going to, as far as the gateway knows.
///
/// The gateway maps its token registry's platform onto this; topic and condition sends (and
/// tokens the registry does not know) are ``unknown``. ``FCMLinter`` says how each rule treats
/// ``unknown``.
public enum LintTargetPlatform: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// An Android app instance (FCM delivers directly).
    case android
    /// An Apple app instance; FCM delivers through APNs.
    case ios
    /// A web client (Web Push).
    case web
    /// Not known, or several (topic and condition sends).
    case unknown

    public var description: String { rawValue }

    /// Whether a message going to `self` may end up on a `platform` device: the same platform,
    /// or any platform when `self` is ``unknown``.
    public func mayReach(_ platform: LintTargetPlatform) -> Bool {
        self == platform || self == .unknown
    }
}
