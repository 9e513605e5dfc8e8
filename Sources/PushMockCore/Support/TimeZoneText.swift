package import Foundation

/// Time zones as users, policies and payloads write them: an IANA identifier
/// (`Europe/Berlin`, `UTC`) or a fixed offset (`+02:00`, `-0530`, `+2`) of at most 18 hours.
///
/// One reading for all of them: the control API once took a user's `"+99:00"` with its own
/// looser check, and the policy checker, which could not read it, judged that user in the
/// policy's default zone without a word.
package enum TimeZoneText {
    /// The zone `text` names, or `nil`.
    package static func zone(named text: String) -> TimeZone? {
        if let offset = offsetSeconds(text) { return TimeZone(secondsFromGMT: offset) }
        guard !text.isEmpty, let zone = TimeZone(identifier: text) else { return nil }
        return zone
    }

    private static func offsetSeconds(_ text: String) -> Int? {
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let digits = text.dropFirst().filter { $0 != ":" }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let hours: Int
        let minutes: Int
        switch digits.count {
        case 1, 2:
            hours = Int(digits)!
            minutes = 0
        case 3, 4:
            hours = Int(digits.dropLast(2))!
            minutes = Int(digits.suffix(2))!
        default:
            return nil
        }
        guard hours <= 18, minutes < 60 else { return nil }
        return (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
    }
}
