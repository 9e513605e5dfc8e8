/// A definition the control API takes whose JSON members are exactly its stored properties
/// (synthesized `Decodable`, no renamed keys), so the API can refuse a member it does not
/// have: decoding alone skips it, leaving a default in force without a word.
///
/// Types with their own `init(from:)` check their members themselves
/// (``UnknownMembers``: users, fault rules, presets, webhooks).
package protocol PlainDefinition: Decodable {
    /// How an error names one: "an APNs token".
    static var definitionName: String { get }
}

extension APNsKeyDefinition: PlainDefinition { package static var definitionName: String { "an APNs key" } }
extension APNsTeamDefinition: PlainDefinition { package static var definitionName: String { "an APNs team" } }
extension APNsDeviceDefinition: PlainDefinition { package static var definitionName: String { "an APNs token" } }
extension APNsTokenPatch: PlainDefinition { package static var definitionName: String { "an APNs token change" } }
extension FCMTokenDefinition: PlainDefinition { package static var definitionName: String { "an FCM token" } }
extension FCMTokenPatch: PlainDefinition { package static var definitionName: String { "an FCM token change" } }
extension ExpoTokenDefinition: PlainDefinition { package static var definitionName: String { "an Expo token" } }
extension ExpoTokenPatch: PlainDefinition { package static var definitionName: String { "an Expo token change" } }
extension ExpoProjectDefinition: PlainDefinition { package static var definitionName: String { "an Expo project" } }
extension NotificationCategoryDefinition: PlainDefinition { package static var definitionName: String { "a category" } }
extension EventPost: PlainDefinition { static var definitionName: String { "an app event (it happens at the gateway's now)" } }
