/// Formats and parses the journal's `time` field: ISO-8601 UTC with milliseconds
/// (`2026-11-21T23:40:00.123Z`).
///
/// Written by hand from the integer millisecond count because `DateFormatter` and
/// `ISO8601DateFormatter` cost microseconds and allocate, which the per-request encoder cannot
/// afford. The calendar conversion is the proleptic Gregorian "civil from days" algorithm
/// (Howard Hinnant), exact for the whole `Int64` range.
public enum JournalTimestamp {
    /// Upper bound on the bytes ``write(millisecondsSinceEpoch:to:)`` produces.
    public static let maximumQuotedLength = 40

    /// Appends the quoted timestamp (`"…Z"`, including the quotes) for `milliseconds` since the
    /// Unix epoch. Years 0–9999 use four digits; other years are written with as many digits as
    /// needed and a leading `-` when negative (ISO-8601 expanded form).
    public static func appendQuoted(millisecondsSinceEpoch milliseconds: Int64, to output: inout [UInt8]) {
        withUnsafeTemporaryAllocation(byteCount: maximumQuotedLength, alignment: 1) { scratch in
            let length = write(millisecondsSinceEpoch: milliseconds, to: scratch.baseAddress!)
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<length]))
        }
    }

    /// Writes the quoted timestamp to `pointer` (room for ``maximumQuotedLength`` bytes) and
    /// returns its length — the allocation-free form used by the journal encoder.
    public static func write(millisecondsSinceEpoch milliseconds: Int64, to pointer: UnsafeMutableRawPointer) -> Int {
        let output = pointer.assumingMemoryBound(to: UInt8.self)
        let (seconds, millisecond) = floorDivide(milliseconds, 1000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civil(fromDays: days)

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
        put(UInt8(ascii: "\""))
        if year >= 0 && year <= 9999 {
            digits(year, 4)
        } else {
            if year < 0 { put(UInt8(ascii: "-")) }
            let magnitude = year.magnitude
            digits(Int64(magnitude), max(4, decimalWidth(magnitude)))
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
        put(UInt8(ascii: "\""))
        return position
    }

    /// The timestamp text without quotes.
    public static func string(millisecondsSinceEpoch milliseconds: Int64) -> String {
        var output: [UInt8] = []
        appendQuoted(millisecondsSinceEpoch: milliseconds, to: &output)
        return String(decoding: output.dropFirst().dropLast(), as: UTF8.self)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z` (four-digit years, 0–3 fraction digits, `Z` only) back
    /// to milliseconds; `nil` for anything else. Used only when a line lacks `timeMs`.
    public static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ length: Int) -> Int64? {
            guard start + length <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[start..<(start + length)] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        func expect(_ position: Int, _ character: Unicode.Scalar) -> Bool {
            position < bytes.count && bytes[position] == UInt8(ascii: character)
        }
        guard let year = number(0, 4), expect(4, "-"), let month = number(5, 2), expect(7, "-"),
            let day = number(8, 2), expect(10, "T"), let hour = number(11, 2), expect(13, ":"),
            let minute = number(14, 2), expect(16, ":"), let second = number(17, 2)
        else { return nil }
        var position = 19
        var millisecond: Int64 = 0
        if expect(position, ".") {
            position += 1
            var digits = 0
            while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39, digits < 3 {
                millisecond = millisecond * 10 + Int64(bytes[position] - 0x30)
                position += 1
                digits += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<3 { millisecond *= 10 }
        }
        guard expect(position, "Z"), position + 1 == bytes.count else { return nil }
        guard (1...12).contains(month), (1...daysInMonth(year: year, month: month)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = self.days(fromCivilYear: year, month: month, day: day)
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
    }

    // MARK: Calendar arithmetic

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// Days since 1970-01-01 → (year, month 1–12, day 1–31).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
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
    static func days(fromCivilYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let adjustedYear = month <= 2 ? year - 1 : year
        let era = floorDivide(adjustedYear, 400).quotient
        let yearOfEra = adjustedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func decimalWidth(_ value: UInt64) -> Int {
        var width = 1
        var remaining = value
        while remaining >= 10 {
            remaining /= 10
            width += 1
        }
        return width
    }
}
