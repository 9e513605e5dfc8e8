import PushMockCore
import PushMockToolkit
import Testing

/// The in-app notification config (Critical Moments seed) played forward on the virtual clock:
/// the condition subset, `scheduleCondition`, `idealDeliveryConditions` with their fallback,
/// windows, days of the week, event instances and cancelation.
@Suite("On-device scheduling: conditions, ideal delivery, windows, events")
struct OnDeviceScheduleTests {
    static func time(_ iso: String) -> Timestamp { Timestamp(millisecondsSince1970: ISO8601Milliseconds.parse(iso)!) }

    static let user = PushUser(id: "ada", timeZone: "Europe/Oslo")

    /// Events for `ada`, numbered in order.
    static func events(_ list: [(String, String, [String: String]?)]) -> [AppEvent] {
        list.enumerated().map { index, entry in
            AppEvent(
                user: "ada", name: entry.1, timeMilliseconds: time(entry.0).millisecondsSince1970, sequence: UInt64(index + 1),
                properties: entry.2)
        }
    }

    static func config(_ notification: String) throws -> InAppNotificationConfig {
        try InAppNotificationConfig(json: Array(#"{"configVersion":1,"notifications":{"n":\#(notification)}}"#.utf8))
    }

    static func schedule(_ notification: String, _ events: [AppEvent], from: String, until: String) throws -> OnDeviceSchedule {
        OnDeviceScheduler(config: try config(notification)).schedule(for: user, events: events, from: time(from), until: time(until))
    }

    // MARK: conditions

    static func state(_ properties: [String: String], events: [String] = []) -> DeviceState {
        var list = events.map { ("2026-01-05T08:00:00.000Z", $0, [String: String]?.none) }
        list.append(("2026-01-05T08:00:00.000Z", "state", properties))
        return DeviceState.at(time("2026-01-05T09:00:00.000Z"), events: Self.events(list))
    }

    @Test(arguments: [
        ("app_state == 'foreground'", true),
        ("app_state != \"foreground\"", false),
        ("has_wifi", true),
        ("!has_wifi || battery_level > 0.5", true),
        ("not has_wifi", false),
        ("battery_level >= 0.8 and battery_level < 0.81", true),
        ("battery_level * 100 > 79", true),
        ("device_orientation in ['portrait', 'landscape_left']", true),
        ("device_orientation not in ['face_up', 'face_down']", true),
        ("eventCount('completeSetup') == 0 && eventCount('opened') >= 2", true),
        ("unset_property == nil", true),
        ("(app_state == 'background' or has_wifi) and app_version == '2.3.1'", true),
    ])
    func conditionKinds(text: String, expected: Bool) throws {
        let condition = try DeviceCondition(text)
        let state = Self.state(
            ["has_wifi": "true", "battery_level": "0.8", "device_orientation": "portrait", "app_version": "2.3.1"],
            events: ["app_entered_foreground", "opened", "opened"])
        #expect(condition.evaluate(in: state) == .success(expected), "\(text)")
    }

    @Test(arguments: [
        "app_state ==", "has_wifi && (", "device_orientation = 'x'", "versionGreaterThan('2.0')", "'open", "a & b", "",
    ])
    func unsupportedConditionsAreParseErrors(text: String) {
        #expect(throws: DeviceConditionError.self) { try DeviceCondition(text) }
    }

    /// Parsing, evaluating and freeing a condition all recurse: 3,000 nested parentheses (10 KB
    /// to `POST /_pushmock/checks/schedule`) overflowed the stack and took the gateway down.
    @Test(
        "conditions nested beyond 100 levels are parse errors, not stack overflows",
        arguments: [
            String(repeating: "(", count: 3000) + "true" + String(repeating: ")", count: 3000),
            String(repeating: "!", count: 100_000) + "true",
            String(repeating: "not ", count: 5000) + "true",
            String(repeating: "-", count: 5000) + "1 > 0",
            String(repeating: "[", count: 3000) + "1" + String(repeating: "]", count: 3000),
            String(repeating: "eventCount(", count: 3000) + "'a'" + String(repeating: ")", count: 3000),
            // No nesting at all, but a chain is a level per operator.
            Array(repeating: "has_wifi", count: 20_000).joined(separator: " || "),
            "1" + String(repeating: " + 1", count: 20_000) + " > 0",
            "has_wifi && (" + Array(repeating: "a == 1", count: 200).joined(separator: " or ") + ")",
        ])
    func deepConditions(text: String) {
        #expect {
            try DeviceCondition(text)
        } throws: { error in
            "\(error)".contains("the condition nests more than 100 levels deep")
        }
    }

    @Test("a condition 100 levels deep, and a long list, still parse and decide")
    func deepestConditions() throws {
        let nested = try DeviceCondition(String(repeating: "(", count: 99) + "true" + String(repeating: ")", count: 99))
        let chain = try DeviceCondition(Array(repeating: "has_wifi", count: 99).joined(separator: " || "))
        let list = try DeviceCondition("app_state in [" + (0..<5000).map { "'s\($0)'" }.joined(separator: ", ") + ", 'background']")
        let state = Self.state(["has_wifi": "true", "app_state": "background"])
        #expect(nested.evaluate(in: state) == .success(true))
        #expect(chain.evaluate(in: state) == .success(true))
        #expect(list.evaluate(in: state) == .success(true))
        #expect(throws: DeviceConditionError.self) {
            try DeviceCondition(String(repeating: "(", count: 100) + "true" + String(repeating: ")", count: 100))
        }
    }

    @Test func undecidableConditionsAreNotMet() throws {
        let condition = try DeviceCondition("battery_level > 'high' || app_state")
        let result = condition.evaluate(in: Self.state(["battery_level": "0.2"]))
        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(error.message.contains("cannot compare 0.2 > 'high'"))
        #expect(!condition.holds(in: Self.state(["battery_level": "0.2"])))
    }

    // MARK: the config

    @Test func readsTheSeedConfig() throws {
        let config = try InAppNotificationConfig(
            json: Array(
                #"""
                {"notifications": {"completeSetupReminder": {
                  "title": "Complete Setup", "body": "It only takes 2 minutes.", "sound": "default",
                  "cancelationEvents": ["completeSetup"],
                  "deliveryTimeOfDayStart": "09:00", "deliveryTimeOfDayEnd": "21:00",
                  "deliveryTime": {"eventName": "app_entered_background", "eventOffsetSeconds": 600},
                  "scheduleCondition": "eventCount('completeSetup') == 0",
                  "idealDeliveryConditions": {"condition": "app_state == 'background'", "maxWaitTimeSeconds": 3600}}}}
                """#.utf8))
        let notification = try #require(config.notifications.first)
        #expect(notification.name == "completeSetupReminder")
        #expect(notification.deliveryTime == .afterEvent(name: "app_entered_background", offset: .seconds(600), instance: .latestOnce))
        #expect(notification.scheduleCondition?.text == "eventCount('completeSetup') == 0")
        #expect(notification.idealDeliveryConditions?.maxWait == .seconds(3600))
    }

    @Test(arguments: [
        (#"{"deliveryTime":{"eventName":"x"},"scheduleConditon":"true"}"#, "notifications.n: unknown member \"scheduleConditon\""),
        (#"{"deliveryTime":{"eventName":"x","timestampEpoch":1}}"#, "notifications.n.deliveryTime: needs exactly one"),
        (#"{"title":"t"}"#, "notifications.n.deliveryTime: missing"),
        (#"{"deliveryTime":{"eventName":"x"},"scheduleCondition":"a =="}"#, "notifications.n.scheduleCondition: the condition ends"),
        (
            #"{"deliveryTime":{"eventName":"x"},"idealDeliveryConditions":{"condition":"true","maxWaitTimeSeconds":-5}}"#,
            "maxWaitTimeSeconds: expected a whole number of seconds, or -1"
        ),
        (#"{"deliveryTime":{"eventName":"x"},"deliveryTimeOfDayStart":"9am"}"#, "deliveryTimeOfDayStart: expected \"HH:MM\""),
        // Seconds that overflow milliseconds once crashed the gateway's schedule check.
        (
            #"{"deliveryTime":{"timestampEpoch":9223372036854775807}}"#,
            "timestampEpoch: must be a time between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z"
        ),
        (#"{"deliveryTime":{"timestampEpoch":253402300800}}"#, "timestampEpoch: must be a time between"),
        (#"{"deliveryTime":{"eventName":"x","eventOffsetSeconds":315576000001}}"#, "eventOffsetSeconds: must be at most 10000 years"),
    ])
    func badConfigsNameThePlace(notification: String, message: String) {
        #expect {
            try Self.config(notification)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    // MARK: windows, days, events, cancelation

    static let seed = #"""
        {"cancelationEvents":["completeSetup"],"deliveryTimeOfDayStart":"09:00","deliveryTimeOfDayEnd":"21:00",
         "deliveryTime":{"eventName":"app_entered_background","eventOffsetSeconds":600}}
        """#

    @Test func seedNotificationWaitsTenMinutesAndMovesIntoTheWindow() throws {
        // Monday 2026-01-05; Oslo is UTC+1. Backgrounded 12:00 local → 12:10 local.
        let daytime = try Self.schedule(
            Self.seed, Self.events([("2026-01-05T11:00:00.000Z", "app_entered_background", nil)]),
            from: "2026-01-05T10:00:00.000Z", until: "2026-01-06T10:00:00.000Z")
        #expect(daytime.deliveryTimes("n") == [Self.time("2026-01-05T11:10:00.000Z")])
        #expect(daytime.entry("n")?.deliveries.first?.reason == .onTime)
        #expect(daytime.entry("n")?.outcome == .delivered)
        // Backgrounded 20:55 local → due 21:05 → next morning 09:00 local.
        let evening = try Self.schedule(
            Self.seed, Self.events([("2026-01-05T19:55:00.000Z", "app_entered_background", nil)]),
            from: "2026-01-05T10:00:00.000Z", until: "2026-01-07T10:00:00.000Z")
        #expect(evening.deliveryTimes("n") == [Self.time("2026-01-06T08:00:00.000Z")])
        #expect(evening.entry("n")?.deliveries.first?.reason == .movedIntoWindow)
    }

    @Test func daysOfWeekPushToTheNextAllowedDay() throws {
        let weekend = #"""
            {"deliveryDaysOfWeek":["Saturday","Sunday"],"deliveryTimeOfDayStart":"10:00","deliveryTimeOfDayEnd":"18:00",
             "deliveryTime":{"eventName":"app_entered_background","eventOffsetSeconds":60}}
            """#
        // Wednesday 12:00 local → Saturday 10:00 local.
        let schedule = try Self.schedule(
            weekend, Self.events([("2026-01-07T11:00:00.000Z", "app_entered_background", nil)]),
            from: "2026-01-07T10:00:00.000Z", until: "2026-01-12T00:00:00.000Z")
        #expect(schedule.deliveryTimes("n") == [Self.time("2026-01-10T09:00:00.000Z")])
        #expect(schedule.entry("n")?.deliveries.first?.localTime == "Sat 2026-01-10 10:00")
    }

    /// Waiting forever for Wi-Fi with a background check every second: one step a second of
    /// the range. The schedule asks `isCancelled` every 4096 steps and stops at the first yes.
    @Test func aLongScheduleStopsWhenCancelled() throws {
        let notification = #"""
            {"title": "x", "deliveryTime": {"eventName": "app_entered_background", "eventOffsetSeconds": 1, "eventInstance": "latest"},
             "idealDeliveryConditions": {"condition": "has_wifi", "maxWaitTimeSeconds": -1}}
            """#
        var options = OnDeviceScheduler.Options()
        options.backgroundCheckInterval = .seconds(1)
        let scheduler = OnDeviceScheduler(config: try Self.config(notification), options: options)
        let events = Self.events([("2026-01-05T10:00:00.000Z", "app_entered_background", nil)])
        var asked = 0
        let full = scheduler.schedule(
            for: Self.user, events: events, from: Self.time("2026-01-05T09:00:00.000Z"), until: Self.time("2026-01-06T09:00:00.000Z"),
            isCancelled: {
                asked += 1
                return false
            })
        // 82,800 one-second checks after the event, asked every 4096 steps.
        #expect(asked == 82_800 / OnDeviceScheduler.cancellationCheckSteps)
        #expect(full.entry("n")?.outcome == .waitingForIdealConditions)
        asked = 0
        let cut = scheduler.schedule(
            for: Self.user, events: events, from: Self.time("2026-01-05T09:00:00.000Z"), until: Self.time("2026-01-06T09:00:00.000Z"),
            isCancelled: {
                asked += 1
                return true
            })
        #expect(asked == 1)
        #expect(cut.entry("n")?.deliveries.isEmpty == true)
    }

    @Test func cancelationEventCancelsForGood() throws {
        let schedule = try Self.schedule(
            Self.seed,
            Self.events([
                ("2026-01-05T11:00:00.000Z", "app_entered_background", nil),
                ("2026-01-05T11:05:00.000Z", "completeSetup", nil),
                ("2026-01-05T12:00:00.000Z", "app_entered_background", nil),
            ]), from: "2026-01-05T10:00:00.000Z", until: "2026-01-06T10:00:00.000Z")
        #expect(schedule.deliveryTimes("n").isEmpty)
        guard case .canceled(let event)? = schedule.entry("n")?.outcome else {
            Issue.record("expected canceled, got \(String(describing: schedule.entry("n")?.outcome))")
            return
        }
        #expect(event.name == "completeSetup" && event.sequence == 2)
    }

    @Test(arguments: [
        // The first instance not followed by another within 600 s is #2 (10:05): due 10:15, once.
        ("latest-once", ["2026-01-05T10:15:00.000Z"]),
        // #2 replaces #1 before it is due; #3 brings another delivery.
        ("latest", ["2026-01-05T10:15:00.000Z", "2026-01-05T11:20:00.000Z"]),
        ("first", ["2026-01-05T10:10:00.000Z"]),
    ])
    func eventInstances(instance: String, expected: [String]) throws {
        let notification = #"{"deliveryTime":{"eventName":"bg","eventOffsetSeconds":600,"eventInstance":"\#(instance)"}}"#
        let events = Self.events([
            ("2026-01-05T10:00:00.000Z", "bg", nil), ("2026-01-05T10:05:00.000Z", "bg", nil), ("2026-01-05T11:10:00.000Z", "bg", nil),
        ])
        let schedule = try Self.schedule(notification, events, from: "2026-01-05T09:00:00.000Z", until: "2026-01-06T09:00:00.000Z")
        #expect(schedule.deliveryTimes("n") == expected.map(Self.time))
    }

    @Test func pastTimestampIsMissed() throws {
        let schedule = try Self.schedule(
            #"{"deliveryTime":{"timestampEpoch":1767600000}}"#, [], from: "2026-01-06T00:00:00.000Z", until: "2026-01-07T00:00:00.000Z")
        #expect(schedule.entry("n")?.outcome == .missed(Timestamp(secondsSince1970: 1_767_600_000)))
        let future = try Self.schedule(
            #"{"deliveryTime":{"timestampEpoch":1767700800}}"#, [], from: "2026-01-06T00:00:00.000Z", until: "2026-01-07T00:00:00.000Z")
        #expect(future.deliveryTimes("n") == [Timestamp(secondsSince1970: 1_767_700_800)])
    }

    // MARK: scheduleCondition

    @Test func scheduleConditionIsCheckedWhenTheAppPlans() throws {
        let notification = #"""
            {"scheduleCondition":"eventCount('completeSetup') == 0 && plan != 'pro'",
             "deliveryTime":{"eventName":"bg","eventOffsetSeconds":600,"eventInstance":"latest"}}
            """#
        let events = Self.events([
            ("2026-01-05T10:00:00.000Z", "bg", nil),
            // The plan changes with a property; no replan until the next trigger event.
            ("2026-01-05T12:00:00.000Z", "purchase", ["plan": "pro"]),
            ("2026-01-05T13:00:00.000Z", "bg", nil),
        ])
        let schedule = try Self.schedule(notification, events, from: "2026-01-05T09:00:00.000Z", until: "2026-01-06T09:00:00.000Z")
        #expect(schedule.deliveryTimes("n") == [Self.time("2026-01-05T10:10:00.000Z")])
        #expect(
            schedule.entry("n")?.outcome
                == .conditionNotMet("scheduleCondition \"eventCount('completeSetup') == 0 && plan != 'pro'\" is false"))
    }

    // MARK: idealDeliveryConditions and the fallback

    static let ideal = #"""
        {"deliveryTime":{"eventName":"bg","eventOffsetSeconds":600},
         "idealDeliveryConditions":{"condition":"app_state == 'foreground' && has_wifi","maxWaitTimeSeconds":3600}}
        """#

    @Test func idealConditionsDeliverAtTheFirstCheckThatFindsThemTrue() throws {
        // bg at 10:00 (due 10:10). Checks every 15 min from the replan at 10:00: 10:15, 10:30, …
        // At 10:20 the app is in the foreground on wifi; the 10:30 check delivers.
        let events = Self.events([
            ("2026-01-05T10:00:00.000Z", "bg", ["has_wifi": "true"]),
            ("2026-01-05T10:20:00.000Z", "app_entered_foreground", nil),
        ])
        let schedule = try Self.schedule(Self.ideal, events, from: "2026-01-05T09:00:00.000Z", until: "2026-01-05T12:00:00.000Z")
        #expect(schedule.deliveryTimes("n") == [Self.time("2026-01-05T10:30:00.000Z")])
        #expect(schedule.entry("n")?.deliveries.first?.reason == .idealConditionsMet)
        #expect(schedule.entry("n")?.deliveries.first?.due == Self.time("2026-01-05T10:10:00.000Z"))
    }

    @Test func idealConditionsFallBackAtTheEndOfTheWait() throws {
        let events = Self.events([("2026-01-05T10:00:00.000Z", "bg", ["has_wifi": "false"])])
        let schedule = try Self.schedule(Self.ideal, events, from: "2026-01-05T09:00:00.000Z", until: "2026-01-05T12:00:00.000Z")
        #expect(schedule.deliveryTimes("n") == [Self.time("2026-01-05T11:10:00.000Z")])
        #expect(schedule.entry("n")?.deliveries.first?.reason == .idealWaitEnded)
    }

    @Test func idealFallbackMovesIntoTheWindow() throws {
        // Due 20:10 local, waits an hour → 21:10, outside 09:00–21:00 → next day 09:00.
        let notification = #"""
            {"deliveryTimeOfDayStart":"09:00","deliveryTimeOfDayEnd":"21:00",
             "deliveryTime":{"eventName":"bg","eventOffsetSeconds":600},
             "idealDeliveryConditions":{"condition":"has_wifi","maxWaitTimeSeconds":3600}}
            """#
        let events = Self.events([("2026-01-05T19:00:00.000Z", "bg", nil)])
        let schedule = try Self.schedule(notification, events, from: "2026-01-05T09:00:00.000Z", until: "2026-01-07T00:00:00.000Z")
        #expect(schedule.deliveryTimes("n") == [Self.time("2026-01-06T08:00:00.000Z")])
        #expect(schedule.entry("n")?.deliveries.first?.reason == .idealWaitEnded)
    }

    @Test func idealConditionsForeverWaitUntilTheyHold() throws {
        let notification = #"""
            {"deliveryTime":{"eventName":"bg"},
             "idealDeliveryConditions":{"condition":"has_wifi","maxWaitTimeSeconds":-1}}
            """#
        let never = try Self.schedule(
            notification, Self.events([("2026-01-05T10:00:00.000Z", "bg", nil)]), from: "2026-01-05T09:00:00.000Z",
            until: "2026-01-08T09:00:00.000Z")
        #expect(never.deliveryTimes("n").isEmpty)
        #expect(never.entry("n")?.outcome == .waitingForIdealConditions)
        let later = try Self.schedule(
            notification,
            Self.events([("2026-01-05T10:00:00.000Z", "bg", nil), ("2026-01-06T18:01:00.000Z", "network", ["has_wifi": "true"])]),
            from: "2026-01-05T09:00:00.000Z", until: "2026-01-08T09:00:00.000Z")
        #expect(later.deliveryTimes("n") == [Self.time("2026-01-06T18:15:00.000Z")])
    }

    @Test func backgroundCheckIntervalIsAnOption() throws {
        let events = Self.events([
            ("2026-01-05T10:00:00.000Z", "bg", ["has_wifi": "true"]),
            ("2026-01-05T10:20:00.000Z", "app_entered_foreground", nil),
        ])
        let scheduler = OnDeviceScheduler(
            config: try Self.config(Self.ideal), options: OnDeviceScheduler.Options(backgroundCheckInterval: .seconds(60)))
        let schedule = scheduler.schedule(
            for: Self.user, events: events, from: Self.time("2026-01-05T09:00:00.000Z"), until: Self.time("2026-01-05T12:00:00.000Z"))
        // The check at 10:20 sees the event of 10:20.
        #expect(schedule.deliveryTimes("n") == [Self.time("2026-01-05T10:20:00.000Z")])
    }
}
