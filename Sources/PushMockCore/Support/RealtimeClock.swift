#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the operating system's real-time clock without Foundation.
enum RealtimeClock {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    static func milliseconds() -> Int64 {
        var spec = timespec()
        // CLOCK_REALTIME cannot fail with a valid pointer; a failure would leave zeros, which is
        // still a defined (if wrong) answer rather than a crash.
        _ = clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}

/// Formats and parses `2026-11-21T23:40:00.123Z` without `DateFormatter` (which is slow and not
/// needed for a fixed UTC format).
public enum ISO8601Milliseconds {
    /// Formats milliseconds since the epoch as ISO 8601 UTC with exactly three fraction digits.
    public static func format(_ milliseconds: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(milliseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the formatted time to a byte buffer.
    ///
    /// Total over `Int64`: a year outside 0–9999 (only from input nobody range-checked, such as
    /// a crafted journal line) is written in ISO 8601's expanded form, a sign and at least six
    /// digits (`-292275055-05-16T16:47:04.192Z`), as JavaScript's `toISOString` does; such text
    /// is not read back (``parse(_:)`` takes four-digit years).
    public static func append(_ milliseconds: Int64, to bytes: inout [UInt8]) {
        // Floor division without `milliseconds - millisecondPart`, which overflows at Int64.min.
        let millisecondPart = Int(((milliseconds % 1000) + 1000) % 1000)
        let totalSeconds = milliseconds / 1000 - (milliseconds % 1000 < 0 ? 1 : 0)
        var days = totalSeconds >= 0 ? totalSeconds / 86_400 : (totalSeconds - 86_399) / 86_400
        let secondOfDay = Int(totalSeconds - days * 86_400)
        // Civil-from-days (Howard Hinnant's algorithm, public domain description).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        var year = yearOfEra + era * 400
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthPrime + 2) / 5 + 1)
        let month = Int(monthPrime < 10 ? monthPrime + 3 : monthPrime - 9)
        if month <= 2 { year += 1 }

        if (0...9999).contains(year) {
            appendDigits(Int(year), count: 4, to: &bytes)
        } else {
            bytes.append(UInt8(ascii: year < 0 ? "-" : "+"))
            let magnitude = Int(year.magnitude)
            appendDigits(magnitude, count: max(6, String(magnitude).count), to: &bytes)
        }
        bytes.append(UInt8(ascii: "-"))
        appendDigits(month, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(day, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(secondOfDay / 3600, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits((secondOfDay / 60) % 60, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        appendDigits(millisecondPart, count: 3, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff…]Z` (or a `±HH:MM` offset) into milliseconds.
    public static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<(start + count)] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 20,
            let year = number(0, 4), bytes[4] == UInt8(ascii: "-"),
            let month = number(5, 2), bytes[7] == UInt8(ascii: "-"),
            let day = number(8, 2), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            let hour = number(11, 2), bytes[13] == UInt8(ascii: ":"),
            let minute = number(14, 2), bytes[16] == UInt8(ascii: ":"),
            let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                if digits < 3 { fraction = fraction * 10 + Int(bytes[index] - 0x30) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in min(digits, 3)..<3 { fraction *= 10 }
        }
        var offsetSeconds = 0
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard let offsetHour = number(index + 1, 2), bytes.count > index + 3,
                bytes[index + 3] == UInt8(ascii: ":"), let offsetMinute = number(index + 4, 2)
            else { return nil }
            offsetSeconds = (offsetHour * 3600 + offsetMinute * 60) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
            index += 6
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        // Days-from-civil.
        let adjustedYear = Int64(month <= 2 ? year - 1 : year)
        let era = (adjustedYear >= 0 ? adjustedYear : adjustedYear - 399) / 400
        let yearOfEra = adjustedYear - era * 400
        let monthIndex = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * monthIndex + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        return seconds * 1000 + Int64(fraction)
    }

    private static func appendDigits(_ value: Int, count: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var remaining = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8((remaining / divisor) % 10))
            remaining %= divisor
            divisor /= 10
        }
    }
}
