/// An Expo project as a token or request names it: its experience id (`@owner/slug`) or its
/// EAS project id (a UUID).
public struct ExpoProjectName: StringIdentifier {
    public let rawValue: String

    public init(_ text: String) { self.rawValue = text }
}

/// One Expo push token as registered or sent (`ExponentPushToken[…]`, unparsed): the key of the
/// gateway's Expo registry. ``ExpoPushToken`` is the parsed form the wire codec checks.
public struct ExpoTokenID: StringIdentifier {
    public let rawValue: String

    public init(_ text: String) { self.rawValue = text }
}
