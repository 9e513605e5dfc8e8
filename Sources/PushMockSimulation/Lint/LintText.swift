import PushMockJSON

/// Small helpers that turn values into the words of a finding's message.
enum LintText {
    /// `"abc"`, `12`, `{"a":1}` — compact JSON, shortened to about 60 characters.
    static func show(_ value: JSONValue) -> String {
        let text = value.compactString
        guard text.count > 60 else { return text }
        return String(text.prefix(57)) + "…"
    }

    /// `a string`, `a number`, … for "is a number, not a string".
    static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "a dictionary"
        }
    }

    /// Names joined with commas and "and": `a`, `a and b`, `a, b and c`.
    static func list(_ names: [String]) -> String {
        guard let last = names.last else { return "" }
        guard names.count > 1 else { return last }
        return names.dropLast().joined(separator: ", ") + " and " + last
    }
}
