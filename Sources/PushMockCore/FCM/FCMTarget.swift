/// Where a message goes: exactly one of the `target` oneof members.
public enum FCMTarget: Sendable, Hashable, CustomStringConvertible {
    /// A registration token (`message.token`).
    case token(String)
    /// A topic name without the `/topics/` prefix (`message.topic`).
    case topic(String)
    /// A topic condition (`message.condition`), parsed.
    case condition(FCMCondition)
    /// A Firebase installation ID (`message.fid`).
    case fid(String)

    /// The proto field name of this target.
    public var fieldName: String {
        switch self {
        case .token: return "token"
        case .topic: return "topic"
        case .condition: return "condition"
        case .fid: return "fid"
        }
    }

    /// Whether this is a fan-out send (topic or condition), which has the smaller 2048-byte
    /// payload limit.
    public var isFanOut: Bool {
        switch self {
        case .topic, .condition: return true
        case .token, .fid: return false
        }
    }

    /// The target value as sent.
    public var value: String {
        switch self {
        case .token(let token): return token
        case .topic(let topic): return topic
        case .condition(let condition): return condition.text
        case .fid(let fid): return fid
        }
    }

    public var description: String { "\(fieldName) \(value)" }
}
