/// Formats and parses `2026-11-21T23:40:00.123Z` without `DateFormatter` (which costs
/// microseconds and allocates; the journal encoder writes one per request). The one formatter
/// behind the journal's `time`, every `Timestamp`'s description and the JSON forms.
public enum ISO8601Milliseconds {
    /// Upper bound on the bytes ``write(_:to:)`` produces (`-292275055-05-16T16:47:04.192Z`).
    public static let maximumLength = 38

    /// Formats milliseconds since the epoch as ISO 8601 UTC with exactly three fraction digits.
    public static func format(_ milliseconds: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(milliseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the formatted time to a byte buffer.
    public static func append(_ milliseconds: Int64, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(byteCount: maximumLength, alignment: 1) { scratch in
            let length = write(milliseconds, to: scratch.baseAddress!)
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<length]))
        }
    }

    /// Writes the formatted time to `pointer` (room for ``maximumLength`` bytes) and returns
    /// its length: the allocation-free form the journal encoder uses.
    ///
    /// Total over `Int64`. Years 0–9999 have four digits; others (only from input nobody
    /// range-checked, such as a crafted journal line) are written in ISO 8601's expanded form,
    /// as many digits as needed and a `-` when negative (`-0001-12-31T…`, `10000-01-01T…`);
    /// ``parse(_:)`` does not read those back.
    public static func write(_ milliseconds: Int64, to pointer: UnsafeMutableRawPointer) -> Int {
        let output = pointer.assumingMemoryBound(to: UInt8.self)
        let (seconds, millisecond) = CivilCalendar.floorDivide(milliseconds, 1000)
        let (days, secondOfDay) = CivilCalendar.floorDivide(seconds, 86_400)
        let (year, month, day) = CivilCalendar.civil(fromDays: days)

        var position = 0
        func put(_ byte: UInt8) {
            output[position] = byte
            position += 1
        }
        func digits(_ value: Int64, _ width: Int) {
            var remaining = value
            var index = position + width
            while index > position {
                index -= 1
                output[index] = 0x30 &+ UInt8(truncatingIfNeeded: remaining % 10)
                remaining /= 10
            }
            position += width
        }
        if year >= 0 && year <= 9999 {
            digits(year, 4)
        } else {
            if year < 0 { put(UInt8(ascii: "-")) }
            let magnitude = year.magnitude
            digits(Int64(magnitude), max(4, CivilCalendar.decimalWidth(magnitude)))
        }
        put(UInt8(ascii: "-"))
        digits(month, 2)
        put(UInt8(ascii: "-"))
        digits(day, 2)
        put(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2)
        put(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2)
        put(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        put(UInt8(ascii: "."))
        digits(millisecond, 3)
        put(UInt8(ascii: "Z"))
        return position
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
        let days = CivilCalendar.days(fromYear: Int64(year), month: Int64(month), day: Int64(day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        return seconds * 1000 + Int64(fraction)
    }
}

/// The proleptic Gregorian calendar's day arithmetic (Howard Hinnant's "civil from days" and
/// "days from civil", from their public description), exact over the whole `Int64` range of
/// milliseconds.
package enum CivilCalendar {
    /// Division rounding toward negative infinity, with a remainder in `0..<divisor`.
    package static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// Days since 1970-01-01 → (year, month 1–12, day 1–31).
    package static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// (year, month, day) → days since 1970-01-01.
    package static func days(fromYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let adjustedYear = month <= 2 ? year - 1 : year
        let era = floorDivide(adjustedYear, 400).quotient
        let yearOfEra = adjustedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    package static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    package static func decimalWidth(_ value: UInt64) -> Int {
        var width = 1
        var remaining = value
        while remaining >= 10 {
            remaining /= 10
            width += 1
        }
        return width
    }
}
