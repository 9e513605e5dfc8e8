/// A JSON document as a small, ordered, lossless tree — for the cold paths (reading journals,
/// test assertions, golden files), never the per-request hot path.
///
/// * Numbers keep their original text (`number("12345678901234567890")`, `number("1.50")`),
///   so nothing is rounded through `Double`.
/// * Objects keep member order and duplicates (see ``JSONObject``).
///
/// Equality (and hashing, consistently):
/// * numbers are equal when they are *mathematically* equal, compared exactly in decimal:
///   `1 == 1.0 == 10e-1`, `0 == -0`, and `9007199254740993 != 9007199254740992` (a `Double`
///   comparison would call those equal);
/// * strings and member names compare byte-for-byte (code points), not by Unicode canonical
///   equivalence as Swift's `String ==` does;
/// * objects ignore the order of different member names; arrays are ordered.
///
/// Parsing (``init(parsing:maxDepth:)-(Collection<UInt8>,_)``) is exactly as strict as
/// ``JSONScanner``; an escaped lone surrogate (`"\uD800"`) is accepted and decoded as U+FFFD.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's text exactly as written (must follow the JSON number grammar to serialize).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    // MARK: Convenience initialisers

    /// A number from an integer.
    public init(_ value: Int) { self = .number(String(value)) }
    /// A number from a signed 64-bit integer.
    public init(_ value: Int64) { self = .number(String(value)) }
    /// A number from an unsigned 64-bit integer.
    public init(_ value: UInt64) { self = .number(String(value)) }
    /// A number from a `Double`; JSON cannot express NaN or infinity, so those become `null`.
    public init(_ value: Double) {
        self = value.isFinite ? .number(value.description) : .null
    }
    /// A string value.
    public init(_ value: String) { self = .string(value) }
    /// A boolean value.
    public init(_ value: Bool) { self = .bool(value) }

    // MARK: Accessors

    /// The kind of this value.
    public var kind: JSONKind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    /// The last member named `key` if this is an object; `nil` otherwise. Chains naturally:
    /// `payload["aps"]?["alert"]?["title"]?.stringValue`.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The element at `index` if this is an array and the index is in range; `nil` otherwise.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The string if this is a string.
    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The boolean if this is `true` or `false`.
    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The number's original text if this is a number.
    public var numberText: String? {
        guard case .number(let text) = self else { return nil }
        return text
    }

    /// The number as a `Double` (nearest value; huge exponents give ±infinity) if this is a
    /// number.
    public var doubleValue: Double? {
        guard case .number(let text) = self else { return nil }
        return Double(text)
    }

    /// The number as an `Int` if it is an integer that fits: `10`, `10.0` and `1e1` all give 10;
    /// `10.5` and `1e30` give `nil`.
    public var intValue: Int? {
        int64Value.flatMap { Int(exactly: $0) }
    }

    /// The number as an `Int64` if it is an integer that fits (see ``intValue``).
    public var int64Value: Int64? {
        guard case .number(let text) = self else { return nil }
        if let exact = Int64(text) { return exact }
        return Self.integralValue(text)
    }

    /// The number as a `UInt64` if it is a non-negative integer that fits (see ``intValue``).
    public var uint64Value: UInt64? {
        guard case .number(let text) = self else { return nil }
        if let exact = UInt64(text) { return exact }
        return Self.integralValue(text)
    }

    /// The elements if this is an array.
    public var arrayValue: [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The members if this is an object.
    public var objectValue: JSONObject? {
        guard case .object(let object) = self else { return nil }
        return object
    }

    /// `true` for `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Integers written with a fraction or exponent (`1.0`, `25e-1`… only when integral).
    /// Goes through the exact canonical form, never through `Double`.
    static func integralValue<Integer: FixedWidthInteger>(_ text: String) -> Integer? {
        guard case .canonical(let canonical) = JSONNumberText.analyze(text) else { return nil }
        if canonical == "0" { return 0 }
        guard let separator = canonical.firstIndex(of: "e"),
            let exponent = Int(canonical[canonical.index(after: separator)...]),
            exponent >= 0, exponent <= 40
        else { return nil }
        let digits = canonical[..<separator] + String(repeating: "0", count: exponent)
        return Integer(digits)
    }

    // MARK: Equatable, Hashable

    /// Semantic equality; see the type documentation for the rules on numbers, strings and objects.
    public static func == (left: JSONValue, right: JSONValue) -> Bool {
        switch (left, right) {
        case (.null, .null):
            true
        case (.bool(let a), .bool(let b)):
            a == b
        case (.number(let a), .number(let b)):
            a == b || JSONNumberText.equalityKey(a) == JSONNumberText.equalityKey(b)
        case (.string(let a), .string(let b)):
            a.utf8.elementsEqual(b.utf8)
        case (.array(let a), .array(let b)):
            a == b
        case (.object(let a), .object(let b)):
            a == b
        default:
            false
        }
    }

    /// Hashes consistently with `==` (numbers by exact value, objects independent of member order).
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0)
        case .bool(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .number(let text):
            hasher.combine(2)
            hasher.combine(JSONNumberText.equalityKey(text))
        case .string(let value):
            hasher.combine(3)
            Self.hashUTF8(value, into: &hasher)
        case .array(let elements):
            hasher.combine(4)
            hasher.combine(elements)
        case .object(let object):
            hasher.combine(5)
            hasher.combine(object)
        }
    }

    /// Hashes the UTF-8 bytes (matching byte-wise equality, unlike `String.hash(into:)`).
    static func hashUTF8(_ string: String, into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(string.utf8.count)
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .number(String(value)) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self.init(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Builds an object in the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text.
    public var description: String { compactString }
}
