public import PushMockCore

/// What a simulated app knows about its device and user at one moment: the properties its
/// conditions read and how often each event happened. Built from the app events a test posts
/// for the user (``DeviceState/at(_:events:)``), so it follows the gateway's virtual clock.
public struct DeviceState: Sendable, Hashable {
    /// Property values by name (`app_state`, `has_wifi`, `battery_level`, custom ones).
    public var properties: [String: ConditionValue]
    /// How many times each event happened so far (`eventCount('completeSetup')`).
    public var eventCounts: [String: Int]

    public init(properties: [String: ConditionValue] = [:], eventCounts: [String: Int] = [:]) {
        self.properties = properties
        self.eventCounts = eventCounts
    }

    /// The event that brings the app to the foreground; after it `app_state` is `'foreground'`.
    public static let foregroundEvent = "app_entered_foreground"
    /// The event that sends the app to the background; after it `app_state` is `'background'`.
    public static let backgroundEvent = "app_entered_background"

    /// The state after every event up to and including `time`, in arrival order: each event
    /// counts once, `app_entered_foreground`/`app_entered_background` set `app_state`, and
    /// the event's properties set those properties from then on (text read as in
    /// ``ConditionValue/init(propertyText:)``).
    public static func at(_ time: Timestamp, events: [AppEvent]) -> DeviceState {
        var state = DeviceState()
        for event in events where event.timeMilliseconds <= time.millisecondsSince1970 {
            state.apply(event)
        }
        return state
    }

    mutating func apply(_ event: AppEvent) {
        eventCounts[event.name, default: 0] += 1
        if event.name == Self.foregroundEvent { properties["app_state"] = .string("foreground") }
        if event.name == Self.backgroundEvent { properties["app_state"] = .string("background") }
        for (name, text) in event.properties ?? [:] { properties[name] = ConditionValue(propertyText: text) }
    }
}
