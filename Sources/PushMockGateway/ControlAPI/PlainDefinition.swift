import PushMockJSON

/// A definition the control API and the configuration file take whose JSON members are exactly
/// its stored properties (synthesized `Decodable`, no renamed keys), so both can refuse a member
/// it does not have: decoding alone skips it, leaving a default in force without a word.
///
/// Types with their own `init(from:)` check their members themselves
/// (``UnknownMembers``: users, fault rules, presets, webhooks).
package protocol PlainDefinition: Decodable {
    /// How an error names one: "an APNs token".
    static var definitionName: String { get }
}

/// A member of a definition's JSON that the definition has no stored property for.
struct UnknownDefinitionMember: Sendable, Equatable {
    /// The member's name as written.
    var member: String
    /// Where the object holding it is below the definition: `""` for the definition itself,
    /// `"actions[1]"` for a nested plain definition.
    var place: String
    /// The members that object takes, in declaration order.
    var known: [String]
    /// How an error names the object holding it.
    var definitionName: String
}

extension PlainDefinition {
    /// The first member (in sorted order, so errors are stable) of `object` that `self`, decoded
    /// from it, has no stored property for, looking into nested plain definitions and arrays of
    /// them; `nil` when every member is taken.
    func firstUnknownMember(in object: JSONValue) -> UnknownDefinitionMember? {
        Self.firstUnknownMember(of: self, in: object, place: "")
    }

    private static func firstUnknownMember(of value: any PlainDefinition, in object: JSONValue, place: String) -> UnknownDefinitionMember? {
        guard let members = object.objectValue else { return nil }
        let children = Mirror(reflecting: value).children.compactMap { child in child.label.map { ($0, child.value) } }
        let known = children.map(\.0)
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            return UnknownDefinitionMember(member: unknown, place: place, known: known, definitionName: type(of: value).definitionName)
        }
        for (label, childValue) in children {
            guard let member = members[label] else { continue }
            let childPlace = place.isEmpty ? label : "\(place).\(label)"
            if let nested = childValue as? any PlainDefinition,
                let found = firstUnknownMember(of: nested, in: member, place: childPlace)
            {
                return found
            }
            if let elements = childValue as? [any PlainDefinition], let objects = member.arrayValue {
                for (index, (element, elementObject)) in zip(elements, objects).enumerated() {
                    if let found = firstUnknownMember(of: element, in: elementObject, place: "\(childPlace)[\(index)]") {
                        return found
                    }
                }
            }
        }
        return nil
    }
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
extension NotificationCategoryDefinition.Action: PlainDefinition { package static var definitionName: String { "a category's action" } }
extension EventPost: PlainDefinition { static var definitionName: String { "an app event (it happens at the gateway's now)" } }
