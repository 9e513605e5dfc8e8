/// A person behind one or more push tokens (APNs device tokens, FCM registration tokens, Expo
/// push tokens), with the settings the policy checks judge each push against: where the user
/// lives (``timeZone``), the language (``locale``) and what the user agreed to receive
/// (``preferences``).
///
/// JSON form (the config file's `users`, the control API's `/_pushmock/users`, `pushmock user`):
///
/// ```json
/// {"id": "ada", "timeZone": "Europe/Oslo", "locale": "nb-NO",
///  "tokens": ["740f4707…", "ExponentPushToken[xxxx]"],
///  "preferences": {"optedOut": {"types": ["marketing"], "channels": ["promotions"]},
///                  "quietHours": [{"start": "22:00", "end": "07:00"}],
///                  "caps": [{"types": ["dose-reminder"], "limit": 3, "calendar": "day"}]}}
/// ```
///
/// The model is deliberately open to growth: [engagement] adds per-device permission state and
/// engagement behaviour as new optional members, so documents written today stay valid.
public struct PushUser: Sendable, Hashable, Codable {
    /// The user's identifier (unique in a gateway).
    public var id: String
    /// An IANA identifier (`Europe/Oslo`) or a fixed offset (`+02:00`); `nil` leaves the
    /// policy's other sources (recipient map, payload, default) to decide.
    public var timeZone: String?
    /// A BCP 47 tag (`nb-NO`), informative for the checks today.
    public var locale: String?
    /// The user's tokens; APNs tokens are matched case-insensitively.
    public var tokens: [String]
    public var preferences: UserPreferences

    public init(
        id: String, timeZone: String? = nil, locale: String? = nil, tokens: [String] = [],
        preferences: UserPreferences = UserPreferences()
    ) {
        self.id = id
        self.timeZone = timeZone
        self.locale = locale
        self.tokens = tokens
        self.preferences = preferences
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, timeZone, locale, tokens, preferences
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try UnknownMembers.reject(in: decoder, known: CodingKeys.allCases.map(\.rawValue), what: "a user")
        id = try container.decode(String.self, forKey: .id)
        guard !id.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .id, in: container, debugDescription: "a user needs a non-empty id")
        }
        timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone)
        locale = try container.decodeIfPresent(String.self, forKey: .locale)
        tokens = try container.decodeIfPresent([String].self, forKey: .tokens) ?? []
        preferences = try container.decodeIfPresent(UserPreferences.self, forKey: .preferences) ?? UserPreferences()
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(timeZone, forKey: .timeZone)
        try container.encodeIfPresent(locale, forKey: .locale)
        try container.encode(tokens, forKey: .tokens)
        try container.encode(preferences, forKey: .preferences)
    }
}

/// What a user agreed to receive.
public struct UserPreferences: Sendable, Hashable, Codable {
    /// The master toggle (the template seed's `pushEnabled`): `false` opts out of everything
    /// that is not exempt.
    public var pushEnabled: Bool
    public var optedOut: OptOuts
    /// The user's own quiet periods, optionally per notification type.
    public var quietHours: [UserQuietHours]
    /// The user's own frequency caps, optionally per notification type.
    public var caps: [UserCap]

    public init(pushEnabled: Bool = true, optedOut: OptOuts = OptOuts(), quietHours: [UserQuietHours] = [], caps: [UserCap] = []) {
        self.pushEnabled = pushEnabled
        self.optedOut = optedOut
        self.quietHours = quietHours
        self.caps = caps
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case pushEnabled, optedOut, quietHours, caps
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try UnknownMembers.reject(in: decoder, known: CodingKeys.allCases.map(\.rawValue), what: "preferences")
        pushEnabled = try container.decodeIfPresent(Bool.self, forKey: .pushEnabled) ?? true
        optedOut = try container.decodeIfPresent(OptOuts.self, forKey: .optedOut) ?? OptOuts()
        quietHours = try container.decodeIfPresent([UserQuietHours].self, forKey: .quietHours) ?? []
        caps = try container.decodeIfPresent([UserCap].self, forKey: .caps) ?? []
    }

    /// What the user opted out of: notification types (the policy's type names), categories
    /// (APNs `aps.category`, Expo `categoryId`) and Android channels (`channel_id`, Expo
    /// `channelId`).
    public struct OptOuts: Sendable, Hashable, Codable {
        public var types: [String]
        public var categories: [String]
        public var channels: [String]

        public init(types: [String] = [], categories: [String] = [], channels: [String] = []) {
            self.types = types
            self.categories = categories
            self.channels = channels
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case types, categories, channels
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            try UnknownMembers.reject(in: decoder, known: CodingKeys.allCases.map(\.rawValue), what: "optedOut")
            types = try container.decodeIfPresent([String].self, forKey: .types) ?? []
            categories = try container.decodeIfPresent([String].self, forKey: .categories) ?? []
            channels = try container.decodeIfPresent([String].self, forKey: .channels) ?? []
        }

        public var isEmpty: Bool { types.isEmpty && categories.isEmpty && channels.isEmpty }
    }
}

/// A user's quiet period: `start` (inclusive) to `end` (exclusive), local `HH:MM`, crossing
/// midnight when `start > end`; for ``types`` only when given.
public struct UserQuietHours: Sendable, Hashable, Codable {
    public var start: String
    public var end: String
    public var types: [String]?

    public init(start: String, end: String, types: [String]? = nil) throws(UserDefinitionError) {
        self.start = start
        self.end = end
        self.types = types
        try validate()
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case start, end, types
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try UnknownMembers.reject(in: decoder, known: CodingKeys.allCases.map(\.rawValue), what: "quietHours")
        start = try container.decode(String.self, forKey: .start)
        end = try container.decode(String.self, forKey: .end)
        types = try container.decodeIfPresent([String].self, forKey: .types)
        do {
            try validate()
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .start, in: container, debugDescription: error.message)
        }
    }

    func validate() throws(UserDefinitionError) {
        guard let start = ClockTime.secondsOfDay(start) else { throw UserDefinitionError("quietHours start \"\(start)\" is not HH:MM") }
        guard let end = ClockTime.secondsOfDay(end) else { throw UserDefinitionError("quietHours end \"\(end)\" is not HH:MM") }
        guard start != end else { throw UserDefinitionError("quietHours start and end are both \(self.start)") }
    }
}

/// A user's cap: at most ``limit`` notifications (of ``types``, or all) per rolling ``window``
/// (`7d`, `24h`) or per local ``calendar`` period (`day`, `week`, `month`).
public struct UserCap: Sendable, Hashable, Codable {
    public var types: [String]?
    public var limit: Int
    public var window: String?
    public var calendar: String?

    public init(types: [String]? = nil, limit: Int, window: String? = nil, calendar: String? = nil) throws(UserDefinitionError) {
        self.types = types
        self.limit = limit
        self.window = window
        self.calendar = calendar
        try validate()
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case types, limit, window, calendar
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try UnknownMembers.reject(in: decoder, known: CodingKeys.allCases.map(\.rawValue), what: "a cap")
        types = try container.decodeIfPresent([String].self, forKey: .types)
        limit = try container.decode(Int.self, forKey: .limit)
        window = try container.decodeIfPresent(String.self, forKey: .window)
        calendar = try container.decodeIfPresent(String.self, forKey: .calendar)
        do {
            try validate()
        } catch {
            // The error names the member at fault (it once said `.limit` of a bad window), or
            // the cap itself when both or neither of window and calendar are given.
            let key: CodingKeys? =
                switch (limit >= 0, window, calendar) {
                case (false, _, _): .limit
                case (true, _?, nil): .window
                case (true, nil, _?): .calendar
                default: nil
                }
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: container.codingPath + (key.map { [$0] } ?? []), debugDescription: error.message))
        }
    }

    /// The rolling window, if ``window`` is given.
    public var rollingWindow: Duration? { window.flatMap(DurationText.parse) }

    func validate() throws(UserDefinitionError) {
        guard limit >= 0 else { throw UserDefinitionError("a cap's limit cannot be negative (was \(limit))") }
        switch (window, calendar) {
        case (let window?, nil):
            guard let duration = DurationText.parse(window), duration > .zero else {
                throw UserDefinitionError("a cap's window \"\(window)\" is not a duration (7d, 24h, 90m)")
            }
        case (nil, let calendar?):
            guard ["day", "week", "month"].contains(calendar) else {
                throw UserDefinitionError("a cap's calendar \"\(calendar)\" is not day, week or month")
            }
        default:
            throw UserDefinitionError("a cap needs exactly one of \"window\" (rolling, 7d) and \"calendar\" (day, week, month)")
        }
    }
}

/// Something the app reported for a user (`app_entered_background`, `completeSetup`), stamped
/// by the gateway's clock when it arrived, numbered in arrival order.
public struct AppEvent: Sendable, Hashable, Codable, CustomStringConvertible {
    public var user: String
    public var name: String
    /// Gateway-clock time, milliseconds since 1970.
    public var timeMilliseconds: Int64
    /// Arrival order in the gateway (1, 2, …).
    public var sequence: UInt64
    public var properties: [String: String]?

    public init(user: String, name: String, timeMilliseconds: Int64, sequence: UInt64, properties: [String: String]? = nil) {
        self.user = user
        self.name = name
        self.timeMilliseconds = timeMilliseconds
        self.sequence = sequence
        self.properties = properties
    }

    enum CodingKeys: String, CodingKey {
        case user, name, time, timeMilliseconds, sequence, properties
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        user = try container.decode(String.self, forKey: .user)
        name = try container.decode(String.self, forKey: .name)
        // An export carries both; either alone is enough. Both are read, so neither is ignored:
        // each must be a time the gateway can hold, and together they must agree.
        let time = try container.decodeIfPresent(FlexibleTimestamp.self, forKey: .time)?.timestamp.millisecondsSince1970
        if let milliseconds = try container.decodeIfPresent(FlexibleTimestamp.self, forKey: .timeMilliseconds)?.timestamp
            .millisecondsSince1970
        {
            if let time, time != milliseconds {
                throw DecodingError.dataCorruptedError(
                    forKey: .timeMilliseconds, in: container,
                    debugDescription: "\(milliseconds) is not the event's time \(Timestamp(millisecondsSince1970: time))")
            }
            timeMilliseconds = milliseconds
        } else if let time {
            timeMilliseconds = time
        } else {
            throw DecodingError.keyNotFound(
                CodingKeys.time, .init(codingPath: container.codingPath, debugDescription: "an event needs its time (or timeMilliseconds)"))
        }
        sequence = try container.decodeIfPresent(UInt64.self, forKey: .sequence) ?? 0
        properties = try container.decodeIfPresent([String: String].self, forKey: .properties)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(user, forKey: .user)
        try container.encode(name, forKey: .name)
        try container.encode(Timestamp(millisecondsSince1970: timeMilliseconds).description, forKey: .time)
        try container.encode(timeMilliseconds, forKey: .timeMilliseconds)
        try container.encode(sequence, forKey: .sequence)
        try container.encodeIfPresent(properties, forKey: .properties)
    }

    /// `completeSetup #4 at 2026-03-28T09:00:00.000Z`.
    public var description: String {
        "\(name) #\(sequence) at \(Timestamp(millisecondsSince1970: timeMilliseconds))"
    }
}

/// The users and app events of a gateway at one moment: what `GET /_pushmock/users` answers
/// and `pushmock user export` saves, so a policy check over a journal can be given the same
/// users later (`pushmock check policy --journal … --users users.json`). Users and events are
/// not written to the journal.
public struct UserDirectory: Sendable, Hashable, Codable {
    public var users: [PushUser]
    public var events: [AppEvent]

    public init(users: [PushUser] = [], events: [AppEvent] = []) {
        self.users = users
        self.events = events
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case users, events
    }

    /// Unknown members are refused: a users file with `"user": […]` was a directory of nobody,
    /// and every policy check on it passed.
    public init(from decoder: any Decoder) throws {
        try UnknownMembers.reject(in: decoder, known: CodingKeys.allCases.map(\.rawValue), what: "a user directory")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        users = try container.decodeIfPresent([PushUser].self, forKey: .users) ?? []
        events = try container.decodeIfPresent([AppEvent].self, forKey: .events) ?? []
    }
}

/// A user definition that does not hold together.
public struct UserDefinitionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// `HH:MM` wall-clock times.
package enum ClockTime {
    /// Seconds since local midnight of `07:30`, `22:00`; `nil` when not a time.
    package static func secondsOfDay(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return hour * 3600 + minute * 60
    }
}

extension UserDirectory {
    /// The key a token is looked up by: APNs (hex) tokens lower-cased, others as they are.
    public static func tokenKey(_ token: String) -> String {
        token.utf8.allSatisfy { HexDigit.isHex($0) } ? APNsDeviceTokenFormat.canonical(token) : token
    }

    /// Users by token key (the first user listing a token wins).
    public func usersByToken() -> [String: PushUser] {
        var index: [String: PushUser] = [:]
        for user in users {
            for token in user.tokens where index[Self.tokenKey(token)] == nil {
                index[Self.tokenKey(token)] = user
            }
        }
        return index
    }
}
