public import PushMockCore
public import PushMockJSON

/// A condition on a notification, used to define notification types, exemptions and the scope
/// of priority rules.
///
/// JSON form — an object whose members must all hold:
///
/// | member | holds when |
/// |---|---|
/// | `"path": "$.type"` (or an array of paths) with `"equals": <JSON>`, `"oneOf": [<JSON>…]`, `"exists": true/false` or `"prefix": "…"` | some value at one of the paths (on the APNs payload or the FCM request body) passes the test |
/// | `"platform": "apns"` | the record's platform |
/// | `"pushType": "background"` (or array) | `apns-push-type` (APNs header; FCM `apns.headers`) |
/// | `"topic": "com.example"` (or array) | `apns-topic`, or the FCM topic |
/// | `"collapseId": "dose-p1"` (or array) | `apns-collapse-id`; FCM `apns.headers.apns-collapse-id` or `android.collapse_key` |
/// | `"silent": true` | shows nothing: background push type, content-available-only, FCM data-only |
/// | `"interruptionLevel": "critical"` (or array) | `aps.interruption-level`; `active` when absent |
/// | `"type": "marketing"` (or array) | the notification's type (not inside type definitions) |
/// | `"all": [<match>…]`, `"any": [<match>…]`, `"not": <match>` | combinations |
///
/// ```json
/// {"path": ["$.type", "$.message.data.type"], "equals": "marketing"}
/// {"any": [{"silent": true}, {"pushType": ["voip", "liveactivity"]}]}
/// ```
public struct PolicyMatch: Sendable, Hashable, CustomStringConvertible {
    enum PathTest: Sendable, Hashable {
        case equals(JSONValue)
        case oneOf([JSONValue])
        case exists(Bool)
        case prefix(String)
    }

    indirect enum Condition: Sendable, Hashable {
        case path([JSONPath], PathTest)
        case platform(Platform)
        case pushType([String])
        case topic([String])
        case collapseID([String])
        case silent(Bool)
        case interruptionLevel([String])
        case type([String])
        case all([PolicyMatch])
        case any([PolicyMatch])
        case not(PolicyMatch)
    }

    let condition: Condition

    init(_ condition: Condition) { self.condition = condition }

    // MARK: Building in code

    /// A value at one of `paths` equals `value` (JSON equality: `5 == 5.0`, strings exactly).
    public static func path(_ paths: String..., equals value: JSONValue) throws(PolicyError) -> Self {
        Self(.path(try parsePaths(paths), .equals(value)))
    }

    /// A value at one of `paths` equals one of `values`.
    public static func path(_ paths: String..., oneOf values: [JSONValue]) throws(PolicyError) -> Self {
        Self(.path(try parsePaths(paths), .oneOf(values)))
    }

    /// Some non-null value is (`true`) or is not (`false`) at one of `paths`.
    public static func path(_ paths: String..., exists: Bool) throws(PolicyError) -> Self {
        Self(.path(try parsePaths(paths), .exists(exists)))
    }

    /// A string at one of `paths` starts with `prefix`.
    public static func path(_ paths: String..., hasPrefix prefix: String) throws(PolicyError) -> Self {
        Self(.path(try parsePaths(paths), .prefix(prefix)))
    }

    public static func platform(_ platform: Platform) -> Self { Self(.platform(platform)) }
    public static func pushType(_ types: String...) -> Self { Self(.pushType(types.map { $0.lowercased() })) }
    public static func topic(_ topics: String...) -> Self { Self(.topic(topics)) }
    public static func collapseID(_ identifiers: String...) -> Self { Self(.collapseID(identifiers)) }
    public static func silent(_ silent: Bool = true) -> Self { Self(.silent(silent)) }
    public static func interruptionLevel(_ levels: String...) -> Self { Self(.interruptionLevel(levels)) }
    public static func type(_ types: String...) -> Self { Self(.type(types)) }
    public static func all(_ matches: [PolicyMatch]) -> Self { Self(.all(matches)) }
    public static func any(_ matches: [PolicyMatch]) -> Self { Self(.any(matches)) }
    public static func not(_ match: PolicyMatch) -> Self { Self(.not(match)) }

    private static func parsePaths(_ texts: [String]) throws(PolicyError) -> [JSONPath] {
        var paths: [JSONPath] = []
        for text in texts {
            do {
                paths.append(try JSONPath(text))
            } catch {
                throw PolicyError(.invalidDefinition, error.description)
            }
        }
        return paths
    }

    // MARK: Evaluating

    func matches(_ subject: PolicySubject) -> Bool {
        switch condition {
        case .path(let paths, let test):
            guard let payload = subject.facts.payload else {
                if case .exists(let expected) = test { return !expected }
                return false
            }
            let values = paths.flatMap { $0.evaluate(payload) }.filter { !$0.isNull }
            switch test {
            case .equals(let expected): return values.contains(expected)
            case .oneOf(let expected): return values.contains { expected.contains($0) }
            case .exists(let expected): return values.isEmpty != expected
            case .prefix(let prefix): return values.contains { $0.stringValue?.utf8.starts(with: prefix.utf8) ?? false }
            }
        case .platform(let platform):
            return subject.facts.platform == platform
        case .pushType(let types):
            return subject.facts.pushType.map { types.contains($0.lowercased()) } ?? false
        case .topic(let topics):
            return subject.facts.topic.map { topics.contains($0) } ?? false
        case .collapseID(let identifiers):
            return subject.facts.collapseID.map { identifiers.contains($0) } ?? false
        case .silent(let silent):
            return subject.facts.isSilent == silent
        case .interruptionLevel(let levels):
            return levels.contains(subject.facts.interruptionLevel)
        case .type(let types):
            return subject.type.map { types.contains($0) } ?? false
        case .all(let matches):
            return matches.allSatisfy { $0.matches(subject) }
        case .any(let matches):
            return matches.contains { $0.matches(subject) }
        case .not(let match):
            return !match.matches(subject)
        }
    }

    /// The type names this match refers to (checked against the file's types).
    var referencedTypes: [String] {
        switch condition {
        case .type(let types): types
        case .all(let matches), .any(let matches): matches.flatMap(\.referencedTypes)
        case .not(let match): match.referencedTypes
        default: []
        }
    }

    /// `$.type == "marketing"`, `silent`, `all(pushType in [background], not(type in [x]))`.
    public var description: String {
        func list(_ values: [String]) -> String { values.count == 1 ? values[0] : "[\(values.joined(separator: ", "))]" }
        switch condition {
        case .path(let paths, let test):
            let place = list(paths.map { DeepLinkLocation.format($0.components) })
            switch test {
            case .equals(let value): return "\(place) == \(value)"
            case .oneOf(let values): return "\(place) in \(JSONValue.array(values))"
            case .exists(let exists): return exists ? "\(place) exists" : "\(place) absent"
            case .prefix(let prefix): return "\(place) starts with \(JSONValue.string(prefix))"
            }
        case .platform(let platform): return "platform \(platform)"
        case .pushType(let types): return "pushType \(list(types))"
        case .topic(let topics): return "topic \(list(topics))"
        case .collapseID(let identifiers): return "collapseId \(list(identifiers))"
        case .silent(let silent): return silent ? "silent" : "visible"
        case .interruptionLevel(let levels): return "interruptionLevel \(list(levels))"
        case .type(let types): return "type \(list(types))"
        case .all(let matches): return "all(\(matches.map(\.description).joined(separator: ", ")))"
        case .any(let matches): return "any(\(matches.map(\.description).joined(separator: ", ")))"
        case .not(let match): return "not(\(match))"
        }
    }

    // MARK: Reading

    static let members = [
        "path", "equals", "oneOf", "exists", "prefix", "platform", "pushType", "topic", "collapseId", "silent", "interruptionLevel", "type",
        "all", "any", "not",
    ]

    /// Reads a match object; `allowType` is false inside type definitions (a type cannot depend
    /// on types).
    static func read(_ value: JSONValue, at location: String, allowType: Bool) throws(DefinitionProblem) -> PolicyMatch {
        let object = try DefinitionObject(value, at: location, allowed: members)
        var conditions: [PolicyMatch] = []
        let tests = ["equals", "oneOf", "exists", "prefix"].filter { object.object[$0] != nil }
        if let paths = try object.strings("path") {
            guard tests.count == 1 else {
                throw DefinitionProblem(location, "\"path\" needs exactly one of equals, oneOf, exists, prefix")
            }
            var parsed: [JSONPath] = []
            for (index, text) in paths.enumerated() {
                parsed.append(
                    try DefinitionObject.path(text, at: paths.count == 1 ? object.place("path") : "\(object.place("path"))[\(index)]"))
            }
            let test: PathTest
            switch tests[0] {
            case "equals":
                test = .equals(object.object["equals"]!)
            case "oneOf":
                guard let values = object.object["oneOf"]?.arrayValue else {
                    throw DefinitionProblem(object.place("oneOf"), "expected an array of values")
                }
                test = .oneOf(values)
            case "exists":
                test = .exists(try object.bool("exists") ?? true)
            default:
                test = .prefix(try object.requiredString("prefix"))
            }
            conditions.append(PolicyMatch(.path(parsed, test)))
        } else if let test = tests.first {
            throw DefinitionProblem(object.place(test), "needs \"path\"")
        }
        if let text = try object.string("platform") {
            guard let platform = Platform(rawValue: text) else {
                throw DefinitionProblem(object.place("platform"), "\"\(text)\": expected apns or fcm")
            }
            conditions.append(.platform(platform))
        }
        if let types = try object.strings("pushType") { conditions.append(PolicyMatch(.pushType(types.map { $0.lowercased() }))) }
        if let topics = try object.strings("topic") { conditions.append(PolicyMatch(.topic(topics))) }
        if let identifiers = try object.strings("collapseId") { conditions.append(PolicyMatch(.collapseID(identifiers))) }
        if let silent = try object.bool("silent") { conditions.append(.silent(silent)) }
        if let levels = try object.strings("interruptionLevel") {
            try InterruptionLevels.check(levels, at: object.place("interruptionLevel"))
            conditions.append(PolicyMatch(.interruptionLevel(levels)))
        }
        if let types = try object.strings("type") {
            guard allowType else { throw DefinitionProblem(object.place("type"), "a type definition cannot depend on types") }
            conditions.append(PolicyMatch(.type(types)))
        }
        for combinator in ["all", "any"] {
            guard let entries = try object.array(combinator) else { continue }
            guard !entries.isEmpty else { throw DefinitionProblem(object.place(combinator), "needs at least one match") }
            var matches: [PolicyMatch] = []
            for entry in entries {
                matches.append(try read(entry.value, at: entry.location, allowType: allowType))
            }
            conditions.append(combinator == "all" ? .all(matches) : .any(matches))
        }
        if let inner = object.value("not") {
            conditions.append(.not(try read(inner, at: object.place("not"), allowType: allowType)))
        }
        guard !conditions.isEmpty else { throw DefinitionProblem(location, "a match needs at least one condition") }
        return conditions.count == 1 ? conditions[0] : .all(conditions)
    }
}

/// Apple's interruption levels (`aps.interruption-level`).
enum InterruptionLevels {
    static let all = ["passive", "active", "time-sensitive", "critical"]

    static func check(_ levels: [String], at location: String) throws(DefinitionProblem) {
        for level in levels where !all.contains(level) {
            throw DefinitionProblem(location, "\"\(level)\" is not an interruption level (expected \(all.joined(separator: ", ")))")
        }
    }
}
