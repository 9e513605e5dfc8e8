import PushMockCore

/// The JSON form (`POST /_pushmock/checks/schedule`): times as ISO 8601 text, reasons and
/// outcomes as stable codes beside their wording.
extension OnDeviceSchedule: Encodable {
    enum CodingKeys: String, CodingKey {
        case user, timeZone, from, until, notifications
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(user, forKey: .user)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(from.description, forKey: .from)
        try container.encode(until.description, forKey: .until)
        try container.encode(entries, forKey: .notifications)
    }
}

extension OnDeviceSchedule.Entry: Encodable {
    enum CodingKeys: String, CodingKey {
        case name, deliveries, outcome, state, at, event, detail
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(deliveries, forKey: .deliveries)
        var outcomeContainer = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .outcome)
        try outcomeContainer.encode(outcome.code, forKey: .state)
        switch outcome {
        case .scheduled(let time), .missed(let time): try outcomeContainer.encode(time.description, forKey: .at)
        case .canceled(let event): try outcomeContainer.encode(event, forKey: .event)
        case .waitingForEvent(let name): try outcomeContainer.encode(name, forKey: .event)
        default: break
        }
        try outcomeContainer.encode(outcome.description, forKey: .detail)
    }
}

extension OnDeviceSchedule.Delivery: Encodable {
    enum CodingKeys: String, CodingKey {
        case time, localTime, due, reason, anchor
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(time.description, forKey: .time)
        try container.encode(localTime, forKey: .localTime)
        try container.encode(due.description, forKey: .due)
        try container.encode(reason.code, forKey: .reason)
        try container.encodeIfPresent(anchor, forKey: .anchor)
    }
}

extension OnDeviceSchedule.Reason {
    /// `on-time`, `moved-into-window`, `ideal-conditions-met`, `ideal-wait-ended`.
    public var code: String {
        switch self {
        case .onTime: "on-time"
        case .movedIntoWindow: "moved-into-window"
        case .idealConditionsMet: "ideal-conditions-met"
        case .idealWaitEnded: "ideal-wait-ended"
        }
    }
}

extension OnDeviceSchedule.Outcome {
    /// `delivered`, `scheduled`, `waiting-for-event`, `waiting-for-ideal-conditions`,
    /// `canceled`, `condition-not-met`, `missed`.
    public var code: String {
        switch self {
        case .delivered: "delivered"
        case .scheduled: "scheduled"
        case .waitingForEvent: "waiting-for-event"
        case .waitingForIdealConditions: "waiting-for-ideal-conditions"
        case .canceled: "canceled"
        case .conditionNotMet: "condition-not-met"
        case .missed: "missed"
        }
    }
}
