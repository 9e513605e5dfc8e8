/// The JSON form of `google.protobuf.Timestamp`: RFC 3339 with an upper-case `T`, seconds,
/// zero to nine fraction digits, and `Z` or a `±hh:mm` offset
/// (`"2024-01-02T03:04:05Z"`, `"2024-01-02T03:04:05.123456789+01:00"`), years 0001–9999.
///
/// The Admin SDKs send `event_time` as `2006-01-02T15:04:05.000000000Z`.
enum FCMProtoTimestamp {
    /// Parses the text into a millisecond ``Timestamp`` (sub-millisecond digits are dropped), or
    /// returns protobuf's reason `Invalid time format: <text>`.
    static func parse(_ text: String) -> Result<Timestamp, FCMReasonText> {
        let failure = FCMReasonText("Invalid time format: \(text)")
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<(start + count)] {
                guard FCMASCII.isDigit(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        func byte(_ index: Int, is character: Character) -> Bool {
            index < bytes.count && bytes[index] == character.asciiValue
        }
        guard let year = number(0, 4), byte(4, is: "-"),
            let month = number(5, 2), byte(7, is: "-"),
            let day = number(8, 2), byte(10, is: "T"),
            let hour = number(11, 2), byte(13, is: ":"),
            let minute = number(14, 2), byte(16, is: ":"),
            let second = number(17, 2),
            year >= 1, (1...12).contains(month), hour < 24, minute < 60, second < 60,
            day >= 1, day <= daysIn(month: month, year: year)
        else { return .failure(failure) }
        var index = 19
        if byte(index, is: ".") {
            index += 1
            let start = index
            while index < bytes.count, FCMASCII.isDigit(bytes[index]) {
                index += 1
            }
            guard (1...9).contains(index - start) else { return .failure(failure) }
        }
        if byte(index, is: "Z") {
            index += 1
        } else if byte(index, is: "+") || byte(index, is: "-") {
            guard let offsetHour = number(index + 1, 2), byte(index + 3, is: ":"),
                let offsetMinute = number(index + 4, 2), offsetHour < 24, offsetMinute < 60
            else { return .failure(failure) }
            index += 6
        } else {
            return .failure(failure)
        }
        guard index == bytes.count, let milliseconds = ISO8601Milliseconds.parse(text) else {
            return .failure(failure)
        }
        return .success(Timestamp(millisecondsSince1970: milliseconds))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
