import Foundation
import PushMockCore
import PushMockJSON

/// Something wrong in a definition file (route table, policy), located by a path such as
/// `routes[2].pattern`. Each area wraps it in its own error type.
struct DefinitionProblem: Error, Sendable {
    enum Kind: Sendable {
        /// The bytes are not JSON.
        case syntax
        /// `version` is missing or not understood.
        case version
        /// A member is unknown, missing, of the wrong type or has an impossible value.
        case content
    }

    var kind: Kind
    /// Where in the document, e.g. `frequencyCaps[0].window`; empty for the whole document.
    var location: String
    var message: String

    init(_ location: String, _ message: String, kind: Kind = .content) {
        self.kind = kind
        self.location = location
        self.message = message
    }
}

/// Reads one JSON object of a definition file, member by member, with messages that name the
/// member and the value: `quietHours[0].start: expected "HH:MM", found "25:00"`.
///
/// Unknown members are rejected (a misspelt `"limt"` must not silently disable a rule), and so
/// are duplicate members.
struct DefinitionObject {
    let object: JSONObject
    /// Location of this object, e.g. `routes[2]`; empty for the root.
    let location: String

    init(_ value: JSONValue, at location: String, allowed: [String]) throws(DefinitionProblem) {
        guard case .object(let object) = value else {
            throw DefinitionProblem(location, "expected an object, found \(Self.describe(value))")
        }
        self.object = object
        self.location = location
        var seen = Set<String>()
        for key in object.keys {
            guard allowed.contains(key) else {
                throw DefinitionProblem(
                    location,
                    "unknown member \"\(key)\" (expected one of: \(allowed.joined(separator: ", ")))"
                )
            }
            guard seen.insert(key).inserted else {
                throw DefinitionProblem(location, "member \"\(key)\" appears twice")
            }
        }
    }

    /// `location.key`, for messages about a member.
    func place(_ key: String) -> String {
        location.isEmpty ? key : "\(location).\(key)"
    }

    func has(_ key: String) -> Bool { object[key] != nil && object[key] != .null }

    func value(_ key: String) -> JSONValue? {
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    func string(_ key: String) throws(DefinitionProblem) -> String? {
        guard let value = value(key) else { return nil }
        guard let text = value.stringValue else {
            throw DefinitionProblem(place(key), "expected a string, found \(Self.describe(value))")
        }
        return text
    }

    func requiredString(_ key: String) throws(DefinitionProblem) -> String {
        guard let text = try string(key) else { throw DefinitionProblem(place(key), "missing") }
        return text
    }

    func bool(_ key: String) throws(DefinitionProblem) -> Bool? {
        guard let value = value(key) else { return nil }
        guard let flag = value.boolValue else {
            throw DefinitionProblem(place(key), "expected true or false, found \(Self.describe(value))")
        }
        return flag
    }

    func integer(_ key: String) throws(DefinitionProblem) -> Int? {
        guard let value = value(key) else { return nil }
        guard let number = value.intValue else {
            throw DefinitionProblem(place(key), "expected an integer, found \(Self.describe(value))")
        }
        return number
    }

    /// A string or an array of strings (`"type": "marketing"` or `"types": ["a", "b"]`).
    func strings(_ key: String) throws(DefinitionProblem) -> [String]? {
        guard let value = value(key) else { return nil }
        if let text = value.stringValue { return [text] }
        guard let elements = value.arrayValue else {
            throw DefinitionProblem(place(key), "expected a string or an array of strings, found \(Self.describe(value))")
        }
        var result: [String] = []
        for (index, element) in elements.enumerated() {
            guard let text = element.stringValue else {
                throw DefinitionProblem("\(place(key))[\(index)]", "expected a string, found \(Self.describe(element))")
            }
            result.append(text)
        }
        return result
    }

    /// The elements of an array member with their locations.
    func array(_ key: String) throws(DefinitionProblem) -> [(value: JSONValue, location: String)]? {
        guard let value = value(key) else { return nil }
        guard let elements = value.arrayValue else {
            throw DefinitionProblem(place(key), "expected an array, found \(Self.describe(value))")
        }
        return elements.enumerated().map { (value: $0.element, location: "\(place(key))[\($0.offset)]") }
    }

    func object(_ key: String, allowed: [String]) throws(DefinitionProblem) -> DefinitionObject? {
        guard let value = value(key) else { return nil }
        return try DefinitionObject(value, at: place(key), allowed: allowed)
    }

    /// Checks `"version"`: required, and `1` is the only version this reader knows.
    func checkVersion(_ supported: Int) throws(DefinitionProblem) {
        guard let version = try integer("version") else {
            throw DefinitionProblem(place("version"), "missing (this reader understands version \(supported))", kind: .version)
        }
        guard version == supported else {
            throw DefinitionProblem(
                place("version"),
                "version \(version) is not supported (this reader understands version \(supported))",
                kind: .version
            )
        }
    }

    /// A JSON path, parsed.
    static func path(_ text: String, at location: String) throws(DefinitionProblem) -> JSONPath {
        do {
            return try JSONPath(text)
        } catch {
            throw DefinitionProblem(location, "\(readable: error)")
        }
    }

    /// `a string "x"`, `the number 3`, `an object`: how a value is named in messages.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .number(let text): "the number \(text)"
        case .string(let text): "the string \"\(text)\""
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Parses a whole document.
    static func parseDocument(_ bytes: some Collection<UInt8>) throws(DefinitionProblem) -> JSONValue {
        do {
            return try JSONValue(parsing: bytes)
        } catch {
            throw DefinitionProblem("", "not valid JSON: \(readable: error)", kind: .syntax)
        }
    }

    /// Reads a file's bytes; the error names the file.
    static func readFile(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }
}
