/// The JSON form of `google.protobuf.Duration`: decimal seconds with up to nine fraction digits
/// and a mandatory `s` suffix (`"3s"`, `"3.5s"`, `"3.000000001s"`, `"-1.5s"`).
///
/// Errors carry protobuf's own reason texts, which Google's front end puts after
/// `Field '<name>', ` in the `Invalid value` line.
enum FCMProtoDuration {
    /// ±10 000 years, protobuf's limit.
    static let maximumSeconds: Int64 = 315_576_000_000

    static let mustEndWithS = "Illegal duration format; duration must end with 's'"
    static let badSeconds = "Invalid duration format, failed to parse seconds"
    static let badNanos = "Invalid duration format, failed to parse nano seconds"
    static let exceedsLimits = "Duration value exceeds limits"

    /// Parses the text, or returns the reason it is not a duration.
    static func parse(_ text: String) -> Result<Duration, FCMReasonText> {
        var bytes = Array(text.utf8)
        guard bytes.last == UInt8(ascii: "s") else { return .failure(FCMReasonText(mustEndWithS)) }
        bytes.removeLast()
        var negative = false
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            bytes.removeFirst()
        }
        let dot = bytes.firstIndex(of: UInt8(ascii: "."))
        let secondDigits = bytes[..<(dot ?? bytes.endIndex)]
        guard !secondDigits.isEmpty, secondDigits.allSatisfy(FCMASCII.isDigit) else {
            return .failure(FCMReasonText(badSeconds))
        }
        var seconds: Int64 = 0
        for digit in secondDigits {
            let (times, overflow1) = seconds.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(digit - 0x30))
            guard !overflow1, !overflow2 else { return .failure(FCMReasonText(badSeconds)) }
            seconds = sum
        }
        var nanoseconds: Int64 = 0
        if let dot {
            let fraction = bytes[(dot + 1)...]
            guard (1...9).contains(fraction.count), fraction.allSatisfy(FCMASCII.isDigit) else {
                return .failure(FCMReasonText(badNanos))
            }
            for digit in fraction {
                nanoseconds = nanoseconds * 10 + Int64(digit - 0x30)
            }
            for _ in fraction.count..<9 {
                nanoseconds *= 10
            }
        }
        guard seconds <= maximumSeconds else { return .failure(FCMReasonText(exceedsLimits)) }
        let magnitude = Duration.seconds(seconds) + Duration.nanoseconds(nanoseconds)
        return .success(negative ? .zero - magnitude : magnitude)
    }

    /// Formats a duration the way the Admin SDKs do: `"3s"`, or `"3.500000000s"` with nine
    /// fraction digits when there is a fraction.
    static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let negative = seconds < 0 || attoseconds < 0
        let wholeSeconds = seconds.magnitude
        let nanos = attoseconds.magnitude / 1_000_000_000
        let sign = negative ? "-" : ""
        guard nanos > 0 else { return "\(sign)\(wholeSeconds)s" }
        let fraction = String(nanos)
        return "\(sign)\(wholeSeconds).\(String(repeating: "0", count: 9 - fraction.count))\(fraction)s"
    }
}
