/// A duration in JSON as people write it: text (`90s`, `1m30s`, `1h30m`, `-5m`, see
/// ``DurationText``) or a number of seconds; encoded as text. The configuration file, the
/// control API's clock and expectations' `within` all read durations through this one type.
/// Durations longer than ``InputLimits/longestDurationSeconds`` are refused.
public struct FlexibleDuration: Codable, Sendable, Hashable {
    public var duration: Duration

    public init(_ duration: Duration) { self.duration = duration }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let seconds = try? container.decode(Double.self) {
            guard let bounded = InputLimits.duration(seconds: seconds) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "a duration must be \(InputLimits.durationRangeText) either way"
                )
            }
            duration = bounded
            return
        }
        let text = try container.decode(String.self)
        guard let parsed = DurationText.parse(text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "expected a duration such as 90s, 2m, 1h30m or a number of seconds, \(InputLimits.durationRangeText)"
            )
        }
        duration = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(DurationText.format(duration))
    }
}
