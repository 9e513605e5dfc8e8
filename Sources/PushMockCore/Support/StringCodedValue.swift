/// A wire value written in JSON as one string (its ``rawValue``); decoding names the values it
/// expected when the string is none of them.
public protocol StringCodedValue: Codable {
    init?(rawValue: String)
    var rawValue: String { get }
    /// The accepted spellings, for error messages.
    static var expectedValues: String { get }
}

extension StringCodedValue {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self(rawValue: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text): expected \(Self.expectedValues)")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
