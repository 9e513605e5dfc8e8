import Foundation
internal import PushMockCore
public import PushMockJSON

extension PolicyFile {
    public static let documentName = "policy file"

    /// Reads a policy from an already parsed document.
    public init(definition: JSONValue) throws(PolicyError) {
        do {
            try self.init(reading: definition)
        } catch let problem as DefinitionProblem {
            throw PolicyError(problem)
        } catch let error as PolicyError {
            throw error
        } catch {
            throw PolicyError(.invalidDefinition, "\(readable: error)")
        }
    }

    private init(reading definition: JSONValue) throws {
        let root = try DefinitionObject(
            definition,
            at: "",
            allowed: [
                "version", "name", "description", "types", "timeZones", "quietHours", "frequencyCaps", "priorityRules", "countRejected",
                "deliveryWindows", "eventRules", "userRules",
            ]
        )
        try root.checkVersion(PushMockToolkit.formatVersion)

        var types: [NotificationType] = []
        for entry in try root.array("types") ?? [] {
            let object = try DefinitionObject(entry.value, at: entry.location, allowed: ["name", "description", "match"])
            guard let match = object.value("match") else { throw DefinitionProblem(object.place("match"), "missing") }
            types.append(
                NotificationType(
                    name: try object.requiredString("name"),
                    match: try PolicyMatch.read(match, at: object.place("match"), allowType: false)
                )
            )
        }

        let timeZones = try Self.readTimeZones(root)

        var quietHours: [QuietHours] = []
        for entry in try root.array("quietHours") ?? [] {
            let object = try DefinitionObject(
                entry.value,
                at: entry.location,
                allowed: [
                    "name", "description", "start", "end", "types", "exemptInterruptionLevels", "exemptTypes", "exemptSilent", "exempt",
                    "exemptPriorities",
                ]
            )
            let levels = try object.strings("exemptInterruptionLevels") ?? ["critical", "time-sensitive"]
            try InterruptionLevels.check(levels, at: object.place("exemptInterruptionLevels"))
            let name = try object.string("name") ?? entry.location
            let start = try Self.readTime(object, "start")
            let end = try Self.readTime(object, "end")
            let ruleTypes = try object.strings("types")
            let exemptTypes = try object.strings("exemptTypes") ?? []
            let exemptSilent = try object.bool("exemptSilent") ?? true
            let exempt = try object.value("exempt").map { try PolicyMatch.read($0, at: object.place("exempt"), allowType: true) }
            let exemptPriorities = try Exemptions.read(object, defaultLevels: levels).priorities
            let rule = try Self.located(entry.location) { () throws(PolicyError) in
                try QuietHours(
                    name: name,
                    start: start,
                    end: end,
                    types: ruleTypes,
                    exemptInterruptionLevels: levels,
                    exemptTypes: exemptTypes,
                    exemptSilent: exemptSilent,
                    exempt: exempt,
                    exemptPriorities: exemptPriorities
                )
            }
            quietHours.append(rule)
        }

        var caps: [FrequencyCap] = []
        for entry in try root.array("frequencyCaps") ?? [] {
            let object = try DefinitionObject(
                entry.value,
                at: entry.location,
                allowed: ["name", "description", "types", "limit", "window", "calendar", "minimumSpacing"]
            )
            var window: CapWindow?
            if let text = try object.string("window") {
                guard let duration = DurationText.parse(text) else {
                    throw DefinitionProblem(object.place("window"), "\"\(text)\" is not a duration (use 7d, 24h, 90m, …)")
                }
                window = .rolling(duration)
            }
            if let text = try object.string("calendar") {
                if window != nil { throw DefinitionProblem(entry.location, "give \"window\" (rolling) or \"calendar\", not both") }
                switch text {
                case "day": window = .calendarDay
                case "week": window = .calendarWeek
                case "month": window = .calendarMonth
                default: throw DefinitionProblem(object.place("calendar"), "\"\(text)\": expected day, week or month")
                }
            }
            var spacing: Duration?
            if let text = try object.string("minimumSpacing") {
                guard let duration = DurationText.parse(text) else {
                    throw DefinitionProblem(object.place("minimumSpacing"), "\"\(text)\" is not a duration (use 1h, 30m, …)")
                }
                spacing = duration
            }
            let name = try object.string("name") ?? entry.location
            let types = try object.strings("types")
            let limit = try object.integer("limit")
            caps.append(
                try Self.located(entry.location) { () throws(PolicyError) in
                    try FrequencyCap(name: name, types: types, limit: limit, window: window, minimumSpacing: spacing)
                }
            )
        }

        var priorityRules: [PriorityRule] = []
        for entry in try root.array("priorityRules") ?? [] {
            let object = try DefinitionObject(
                entry.value,
                at: entry.location,
                allowed: ["name", "description", "types", "match", "priority", "androidPriority"]
            )
            var priorities: [Int]?
            if let value = object.value("priority") {
                let values = value.arrayValue ?? [value]
                priorities = try values.map { value in
                    guard let priority = value.intValue else {
                        throw DefinitionProblem(object.place("priority"), "expected a priority (1, 5 or 10) or an array of them")
                    }
                    return priority
                }
            }
            let name = try object.string("name") ?? entry.location
            let types = try object.strings("types")
            let android = try object.strings("androidPriority")
            let match = try object.value("match").map { try PolicyMatch.read($0, at: object.place("match"), allowType: true) }
            priorityRules.append(
                try Self.located(entry.location) { () throws(PolicyError) in
                    try PriorityRule(name: name, types: types, match: match, priorities: priorities, androidPriorities: android)
                }
            )
        }

        var windows: [DeliveryWindow] = []
        for entry in try root.array("deliveryWindows") ?? [] {
            let object = try DefinitionObject(
                entry.value, at: entry.location, allowed: ["name", "description", "types", "start", "end", "days"] + Exemptions.members)
            let name = try object.string("name") ?? entry.location
            let start = try Self.readTime(object, "start")
            let end = try Self.readTime(object, "end")
            let days = try Weekday.parse(try object.strings("days") ?? [], at: object.place("days"))
            let types = try object.strings("types")
            let exemptions = try Exemptions.read(object, defaultLevels: ["critical"])
            windows.append(
                try Self.located(entry.location) { () throws(PolicyError) in
                    try DeliveryWindow(name: name, types: types, start: start, end: end, days: days, exemptions: exemptions)
                })
        }

        var eventRules: [EventRule] = []
        for entry in try root.array("eventRules") ?? [] {
            let object = try DefinitionObject(
                entry.value, at: entry.location,
                allowed: [
                    "name", "description", "types", "match", "deliveryTime", "cancelationEvents", "deliveryTimeOfDayStart",
                    "deliveryTimeOfDayEnd", "deliveryDaysOfWeek",
                ] + Exemptions.members)
            let name = try object.string("name") ?? entry.location
            var event: String?
            var offset = Duration.zero
            var instance = EventInstance.latestOnce
            if let timing = try object.object("deliveryTime", allowed: ["eventName", "eventOffsetSeconds", "eventInstance"]) {
                event = try timing.requiredString("eventName")
                if let seconds = timing.value("eventOffsetSeconds") {
                    guard let number = seconds.doubleValue, number >= 0 else {
                        throw DefinitionProblem(timing.place("eventOffsetSeconds"), "expected a number of seconds, 0 or more")
                    }
                    guard let duration = InputLimits.duration(seconds: number) else {
                        throw DefinitionProblem(timing.place("eventOffsetSeconds"), "must be \(InputLimits.durationRangeText)")
                    }
                    offset = duration
                }
                if let text = try timing.string("eventInstance") {
                    guard let value = EventInstance(rawValue: text) else {
                        throw DefinitionProblem(timing.place("eventInstance"), "\"\(text)\": expected latest-once, latest or first")
                    }
                    instance = value
                }
            }
            var window: DeliveryWindow?
            let startText = try object.string("deliveryTimeOfDayStart")
            let endText = try object.string("deliveryTimeOfDayEnd")
            let days = try Weekday.parse(try object.strings("deliveryDaysOfWeek") ?? [], at: object.place("deliveryDaysOfWeek"))
            if startText != nil || endText != nil || !days.isEmpty {
                let start = try startText.map { _ in try Self.readTime(object, "deliveryTimeOfDayStart") } ?? TimeOfDay(hour: 0, minute: 0)!
                let end = try endText.map { _ in try Self.readTime(object, "deliveryTimeOfDayEnd") } ?? TimeOfDay(hour: 0, minute: 0)!
                let exemptions = try Exemptions.read(object, defaultLevels: ["critical"])
                window = try Self.located(entry.location) { () throws(PolicyError) in
                    try DeliveryWindow(name: name, start: start, end: end, days: days, exemptions: exemptions)
                }
            }
            let types = try object.strings("types")
            let match = try object.value("match").map { try PolicyMatch.read($0, at: object.place("match"), allowType: true) }
            let cancel = try object.strings("cancelationEvents") ?? []
            let ruleEvent = event
            let ruleOffset = offset
            let ruleInstance = instance
            let ruleWindow = window
            eventRules.append(
                try Self.located(entry.location) { () throws(PolicyError) in
                    try EventRule(
                        name: name, types: types, match: match, event: ruleEvent, offset: ruleOffset, instance: ruleInstance,
                        cancelationEvents: cancel, window: ruleWindow)
                })
        }

        var userRules = UserRules()
        if let section = try root.object("userRules", allowed: ["description"] + Exemptions.members) {
            userRules = UserRules(exemptions: try Exemptions.read(section, defaultLevels: ["critical", "time-sensitive"]))
        }

        try self.init(
            name: try root.string("name"),
            types: types,
            timeZones: timeZones,
            quietHours: quietHours,
            frequencyCaps: caps,
            priorityRules: priorityRules,
            deliveryWindows: windows,
            eventRules: eventRules,
            userRules: userRules,
            countRejected: try root.bool("countRejected") ?? false
        )
    }

    /// Runs `body`, attributing a ``PolicyError`` without a location to `location`.
    private static func located<Result>(_ location: String, _ body: () throws(PolicyError) -> Result) throws(PolicyError) -> Result {
        do {
            return try body()
        } catch {
            var located = error
            if located.location.isEmpty { located.location = location }
            throw located
        }
    }

    private static func readTime(_ object: DefinitionObject, _ key: String) throws(DefinitionProblem) -> TimeOfDay {
        let text = try object.requiredString(key)
        guard let time = TimeOfDay(text) else {
            throw DefinitionProblem(object.place(key), "expected a time \"HH:MM\" (00:00 to 23:59), found \"\(text)\"")
        }
        return time
    }

    private static func readTimeZones(_ root: DefinitionObject) throws -> TimeZones {
        guard let section = try root.object("timeZones", allowed: ["description", "default", "byRecipient", "paths"]) else {
            return TimeZones()
        }
        func zone(_ text: String, at location: String) throws(PolicyError) -> TimeZone {
            guard let zone = TimeZoneText.zone(named: text) else {
                throw PolicyError(
                    .unknownTimeZone,
                    "\"\(text)\" is not a time zone (use an IANA identifier such as Europe/Berlin, or an offset such as +02:00)",
                    location: location
                )
            }
            return zone
        }
        var byRecipient: [String: TimeZone] = [:]
        if let value = section.value("byRecipient") {
            guard let object = value.objectValue else {
                throw DefinitionProblem(section.place("byRecipient"), "expected an object of token: time zone")
            }
            for member in object.members {
                let location = "\(section.place("byRecipient")).\(member.key)"
                guard let text = member.value.stringValue else { throw DefinitionProblem(location, "expected a time-zone string") }
                byRecipient[member.key] = try zone(text, at: location)
            }
        }
        var paths: [JSONPath] = []
        for (index, text) in (try section.strings("paths") ?? []).enumerated() {
            paths.append(try DefinitionObject.path(text, at: "\(section.place("paths"))[\(index)]"))
        }
        let defaultZone = try section.string("default").map { try zone($0, at: section.place("default")) }
        return TimeZones(defaultZone: defaultZone ?? .gmt, byRecipient: byRecipient, paths: paths)
    }
}

extension PolicyFile: Decodable {
    /// Decodes the same JSON as ``init(definition:)`` (for control-API bodies); problems become
    /// `DecodingError.dataCorrupted` with the ``PolicyError`` text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let document = try container.decode(JSONValue.self)
        do {
            try self.init(definition: document)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }
}
