/// Durations as people type them: `90s`, `2m`, `1h30m`, `1.5h`, `500ms`, `2d`, `1w`, or a bare
/// number of seconds. Used by the control API, the configuration file and the CLI.
public enum DurationText {
    /// Parses `text`; `nil` when it is not a duration or is longer than
    /// ``InputLimits/longestDurationSeconds``. A leading `-` gives a negative duration (moving a
    /// virtual clock back).
    public static func parse(_ text: some StringProtocol) -> Duration? {
        var rest = Substring(text.trimmingSpaces)
        guard !rest.isEmpty else { return nil }
        var sign: Int64 = 1
        if rest.first == "-" {
            sign = -1
            rest = rest.dropFirst()
        } else if rest.first == "+" {
            rest = rest.dropFirst()
        }
        if let seconds = Double(rest) {
            // Out of range is not a duration: converting it to whole milliseconds would trap.
            return InputLimits.duration(seconds: Double(sign) * seconds)
        }
        var totalMilliseconds: Double = 0
        var sawComponent = false
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(unit.count)
            guard let scale = unitMilliseconds[String(unit).lowercased()] else { return nil }
            totalMilliseconds += value * scale
            sawComponent = true
        }
        guard sawComponent, totalMilliseconds.isFinite, totalMilliseconds <= InputLimits.longestDurationSeconds * 1000 else { return nil }
        return .milliseconds(sign * Int64(totalMilliseconds.rounded()))
    }

    /// `1h30m`, `2m`, `45s`, `250ms`: the shortest exact spelling.
    public static func format(_ duration: Duration) -> String {
        var milliseconds = duration.wholeMilliseconds
        if milliseconds == 0 { return "0s" }
        var text = milliseconds < 0 ? "-" : ""
        milliseconds = abs(milliseconds)
        for (unit, scale) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1)] {
            let count = milliseconds / scale
            if count > 0 {
                text += "\(count)\(unit)"
                milliseconds -= count * scale
            }
        }
        return text
    }

    private static let unitMilliseconds: [String: Double] = [
        "ms": 1, "s": 1000, "sec": 1000, "m": 60_000, "min": 60_000,
        "h": 3_600_000, "d": 86_400_000, "w": 604_800_000,
    ]
}

extension StringProtocol {
    var trimmingSpaces: SubSequence {
        let start = firstIndex { $0 != " " } ?? endIndex
        let end = lastIndex { $0 != " " }.map { index(after: $0) } ?? start
        return self[start..<end]
    }
}
