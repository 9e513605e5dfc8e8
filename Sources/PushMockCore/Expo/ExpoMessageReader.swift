import PushMockJSON

/// Reads and validates the fields of one message object (everything but `to`), in the order
/// the Expo docs list them, stopping at the first problem as the service does.
///
/// Messages follow the observed `VALIDATION_ERROR` wording `[0].data must be of type object.`;
/// the exact texts for the other fields are ours in the same style (UNVERIFIED). `null` counts
/// as absent for every field: SDKs that send every key (PHP, Java) get tickets, not errors.
struct ExpoMessageReader {
    private let object: JSONObject
    private let prefix: String
    private let options: ExpoValidationOptions

    /// The members the docs define (plus the legacy ones the SDKs still send).
    static let knownFields: Set<String> = [
        "to", "data", "title", "subtitle", "body", "sound", "ttl", "expiration", "priority",
        "badge", "channelId", "categoryId", "icon", "richContent", "collapseId", "tag",
        "mutableContent", "_contentAvailable", "interruptionLevel",
        "_category", "_displayInForeground",
    ]

    init(object: JSONObject, prefix: String, options: ExpoValidationOptions) {
        self.object = object
        self.prefix = prefix
        self.options = options
    }

    func read(messageIndex: Int) throws(ExpoRequestError) -> ExpoMessage {
        var message = ExpoMessage(to: "", token: nil, messageIndex: messageIndex, object: object)
        message.data = try objectField("data")
        message.title = try stringField("title")
        message.subtitle = try stringField("subtitle")
        message.body = try stringField("body")
        message.sound = try soundField()
        message.ttl = try numberField("ttl", minimum: 0)
        message.expiration = try numberField("expiration", minimum: 0)
        message.priority = try enumField("priority", ExpoPriority.allCases.map(\.rawValue)).map { ExpoPriority(rawValue: $0)! }
        message.badge = try integerField("badge", minimum: 0)
        message.channelID = try stringField("channelId")
        message.categoryID = try stringField("categoryId")
        message.icon = try stringField("icon")
        message.richContentImage = try richContentField()
        message.collapseID = try stringField("collapseId")
        message.tag = try stringField("tag")
        message.mutableContent = try boolField("mutableContent")
        message.contentAvailable = try boolField("_contentAvailable")
        message.interruptionLevel = try enumField("interruptionLevel", ExpoInterruptionLevel.allCases.map(\.rawValue))
            .map { ExpoInterruptionLevel(rawValue: $0)! }
        if options.rejectsUnknownFields, let unknown = object.keys.first(where: { !Self.knownFields.contains($0) }) {
            throw .validation(prefix + unknown, "is not allowed")
        }
        return message
    }

    // MARK: Field kinds

    private func value(_ name: String) -> JSONValue? {
        guard let value = object[name], !value.isNull else { return nil }
        return value
    }

    private func stringField(_ name: String) throws(ExpoRequestError) -> String? {
        guard let value = value(name) else { return nil }
        guard case .string(let text) = value else { throw .validation(prefix + name, "must be a string") }
        return text
    }

    private func boolField(_ name: String) throws(ExpoRequestError) -> Bool? {
        guard let value = value(name) else { return nil }
        guard case .bool(let flag) = value else { throw .validation(prefix + name, "must be a boolean") }
        return flag
    }

    private func objectField(_ name: String) throws(ExpoRequestError) -> JSONObject? {
        guard let value = value(name) else { return nil }
        guard case .object(let members) = value else { throw .validation(prefix + name, "must be of type object") }
        return members
    }

    private func numberField(_ name: String, minimum: Double) throws(ExpoRequestError) -> Double? {
        guard let value = value(name) else { return nil }
        return try Self.number(value, path: prefix + name, minimum: minimum, maximum: nil)
    }

    private func integerField(_ name: String, minimum: Double) throws(ExpoRequestError) -> Int? {
        guard let value = value(name) else { return nil }
        let number = try Self.number(value, path: prefix + name, minimum: nil, maximum: nil)
        guard number.rounded(.towardZero) == number else { throw .validation(prefix + name, "must be an integer") }
        guard number >= minimum else { throw .validation(prefix + name, "must be greater than or equal to \(Int(minimum))") }
        guard let integer = Int(exactly: number) else { throw .validation(prefix + name, "must be a safe number") }
        return integer
    }

    private func enumField(_ name: String, _ allowed: [String]) throws(ExpoRequestError) -> String? {
        guard let value = value(name) else { return nil }
        guard case .string(let text) = value, allowed.contains(text) else {
            throw .validation(prefix + name, "must be one of [\(allowed.joined(separator: ", "))]")
        }
        return text
    }

    private func soundField() throws(ExpoRequestError) -> ExpoSound? {
        guard let value = value("sound") else { return nil }
        switch value {
        case .string(let name):
            return .named(name)
        case .object(let members):
            var sound = ExpoCriticalSound()
            let path = prefix + "sound."
            if let critical = members["critical"], !critical.isNull {
                guard case .bool(let flag) = critical else { throw .validation(path + "critical", "must be a boolean") }
                sound.critical = flag
            }
            if let name = members["name"], !name.isNull {
                guard case .string(let text) = name else { throw .validation(path + "name", "must be a string") }
                sound.name = text
            }
            if let volume = members["volume"], !volume.isNull {
                sound.volume = try Self.number(volume, path: path + "volume", minimum: 0, maximum: 1)
            }
            return .critical(sound)
        default:
            throw .validation(prefix + "sound", "must be one of [string, object]")
        }
    }

    private func richContentField() throws(ExpoRequestError) -> String? {
        guard let value = value("richContent") else { return nil }
        guard case .object(let members) = value else { throw .validation(prefix + "richContent", "must be of type object") }
        guard let image = members["image"], !image.isNull else { return nil }
        guard case .string(let url) = image else { throw .validation(prefix + "richContent.image", "must be a string") }
        return url
    }

    private static func number(
        _ value: JSONValue,
        path: String,
        minimum: Double?,
        maximum: Double?
    ) throws(ExpoRequestError) -> Double {
        guard case .number = value, let number = value.doubleValue, number.isFinite else {
            throw .validation(path, "must be a number")
        }
        // Joi's number type refuses what a JavaScript number cannot hold exactly as an integer,
        // before any rule: `"ttl": 1e300` is "must be a safe number", not "larger than 0".
        guard abs(number) <= Self.largestSafeInteger else {
            throw .validation(path, "must be a safe number")
        }
        if let minimum, number < minimum {
            throw .validation(path, "must be greater than or equal to \(format(minimum))")
        }
        if let maximum, number > maximum {
            throw .validation(path, "must be less than or equal to \(format(maximum))")
        }
        return number
    }

    /// JavaScript's `Number.MAX_SAFE_INTEGER`, 2^53 − 1.
    static let largestSafeInteger: Double = 9_007_199_254_740_991

    private static func format(_ bound: Double) -> String {
        bound.rounded(.towardZero) == bound ? String(Int(bound)) : String(bound)
    }
}
