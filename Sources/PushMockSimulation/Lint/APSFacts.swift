import PushMockJSON

/// What the lint rules need to know about an APNs payload, read in one pass over `aps`.
struct APSFacts {
    /// Whether the payload has an `aps` member at all, and whether it is a dictionary.
    var hasAps = false
    var apsIsObject = false

    var alert: JSONValue?
    var badge: JSONValue?
    var sound: JSONValue?
    var contentAvailable: JSONValue?
    var mutableContent: JSONValue?
    var interruptionLevel: JSONValue?
    var relevanceScore: JSONValue?
    var threadID: JSONValue?
    var event: JSONValue?
    var timestamp: JSONValue?
    var contentState: JSONValue?
    var attributesType: JSONValue?
    var attributes: JSONValue?
    /// Keys Apple does not define, in payload order (duplicates once).
    var otherKeys: [String] = []

    /// Reads the `aps` member of a payload object. The last occurrence of a key wins, as in
    /// ``JSONObject`` lookups.
    init(payload: JSONObject) {
        guard let apsValue = payload["aps"] else { return }
        hasAps = true
        guard case .object(let aps) = apsValue else { return }
        apsIsObject = true
        for (key, value) in aps.members {
            switch key {
            case "alert": alert = value
            case "badge": badge = value
            case "sound": sound = value
            case "content-available": contentAvailable = value
            case "mutable-content": mutableContent = value
            case "interruption-level": interruptionLevel = value
            case "relevance-score": relevanceScore = value
            case "thread-id": threadID = value
            case "event": event = value
            case "timestamp": timestamp = value
            case "content-state": contentState = value
            case "attributes-type": attributesType = value
            case "attributes": attributes = value
            default:
                if !APSKeys.aps.contains(key), !otherKeys.contains(key) {
                    otherKeys.append(key)
                }
            }
        }
    }

    /// `content-available` is the number 1.
    var isContentAvailable: Bool { contentAvailable.map(Self.isNumberOne) ?? false }
    /// `mutable-content` is the number 1.
    var isMutableContent: Bool { mutableContent.map(Self.isNumberOne) ?? false }

    /// Any of the keys that make a notification user-facing: alert, badge, sound.
    var hasUserFacingKey: Bool { alert != nil || badge != nil || sound != nil }

    /// `content-available: 1` and nothing user-facing: a background notification by content.
    var isContentAvailableOnly: Bool { isContentAvailable && !hasUserFacingKey }

    /// Whether `alert` has text to display.
    var alertHasText: Bool { alert.map { Self.emptinessOfAlert($0) == nil } ?? false }

    /// Whether this asks for critical treatment: `interruption-level: critical`, or a sound
    /// dictionary with `critical: 1`.
    var isCritical: Bool {
        if interruptionLevel?.stringValue == "critical" { return true }
        if case .object(let soundObject) = sound, let critical = soundObject["critical"] {
            return Self.isNumberOne(critical) || critical.boolValue == true
        }
        return false
    }

    /// Why `alert` has no text to display, or `nil` when it has some.
    static func emptinessOfAlert(_ alert: JSONValue) -> String? {
        switch alert {
        case .string(let text):
            return text.isEmpty ? "is an empty string" : nil
        case .object(let object):
            if object.members.isEmpty { return "is an empty dictionary" }
            for key in APSKeys.alertTextKeys {
                guard let value = object[key] else { continue }
                switch value {
                case .string(let text) where !text.isEmpty: return nil
                // Live Activity alerts nest `{"loc-key": …}` objects under title and body.
                case .object(let nested) where !nested.members.isEmpty: return nil
                default: continue
                }
            }
            return "has no non-empty title, subtitle, body or loc key"
        default:
            return "is \(LintText.kind(of: alert)), not a string or dictionary"
        }
    }

    /// The number 1, written any way (`1`, `1.0`, `1e0`).
    static func isNumberOne(_ value: JSONValue) -> Bool {
        value.intValue == 1
    }
}
