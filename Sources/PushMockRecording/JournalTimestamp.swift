import PushMockCore

/// The journal's `time` field: ISO-8601 UTC with milliseconds (`"2026-11-21T23:40:00.123Z"`),
/// quoted, as ``ISO8601Milliseconds`` formats it, and read back by a stricter parser than the
/// control API's (`Z` only, at most three fraction digits: what the journal writes).
public enum JournalTimestamp {
    /// Upper bound on the bytes ``write(millisecondsSinceEpoch:to:)`` produces.
    public static let maximumQuotedLength = 40

    /// Appends the quoted timestamp (`"…Z"`, including the quotes) for `milliseconds` since the
    /// Unix epoch (years outside 0–9999 in ISO 8601's expanded form, see
    /// ``ISO8601Milliseconds/write(_:to:)``).
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
        output[0] = UInt8(ascii: "\"")
        let length = ISO8601Milliseconds.write(milliseconds, to: pointer + 1)
        output[length + 1] = UInt8(ascii: "\"")
        return length + 2
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
        guard (1...12).contains(month), (1...CivilCalendar.daysInMonth(year: year, month: month)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = CivilCalendar.days(fromYear: year, month: month, day: day)
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
    }
}
