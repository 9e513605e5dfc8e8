/// A time in JSON as people write it: ISO 8601 text, or milliseconds since the epoch (a number
/// or a string of digits); encoded as ISO 8601. The configuration file, the control API and
/// recording queries' `since`/`until` all read times through this one type. Times outside
/// ``InputLimits/timestampMilliseconds`` are refused.
public struct FlexibleTimestamp: Codable, Sendable, Hashable {
    public var timestamp: Timestamp

    public init(_ timestamp: Timestamp) { self.timestamp = timestamp }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let milliseconds: Int64
        if let number = try? container.decode(Int64.self) {
            milliseconds = number
        } else {
            let text = try container.decode(String.self)
            guard let parsed = ISO8601Milliseconds.parse(text) ?? Int64(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "expected an ISO 8601 time such as 2026-11-21T10:02:00Z or milliseconds since 1970"
                )
            }
            milliseconds = parsed
        }
        guard InputLimits.timestampMilliseconds.contains(milliseconds) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "a time must be \(InputLimits.timestampRangeText)"
            )
        }
        timestamp = Timestamp(millisecondsSince1970: milliseconds)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(timestamp.description)
    }
}
