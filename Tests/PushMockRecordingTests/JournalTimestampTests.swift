import PushMockCore
import PushMockRecording
import Testing

@Suite("JournalTimestamp")
struct JournalTimestampTests {
    @Test(
        "formats milliseconds as ISO-8601 UTC",
        arguments: [
            (Int64(0), "1970-01-01T00:00:00.000Z"),
            (1, "1970-01-01T00:00:00.001Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (1_795_304_400_123, "2026-11-21T23:40:00.123Z"),
            (4_107_542_399_999, "2100-02-28T23:59:59.999Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
            (253_402_300_800_000, "10000-01-01T00:00:00.000Z"),
            (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
            (-62_167_219_200_001, "-0001-12-31T23:59:59.999Z"),
        ]
    )
    func format(_ milliseconds: Int64, _ expected: String) {
        #expect(JournalTimestamp.string(millisecondsSinceEpoch: milliseconds) == expected)
        if expected.utf8.count == 24 {
            #expect(JournalTimestamp.parse(expected) == milliseconds)
        }
    }

    @Test("agrees with day-by-day calendar arithmetic over 1,500 years", arguments: [0, 1, 2])
    func exhaustiveDays(_ part: Int) {
        // Walk every day from 1600-03-01 (a known date) forward; every date must increase by one.
        var expected = (year: Int64(1600), month: Int64(3), day: Int64(1))
        let startDays: Int64 = -135_080  // 1600-03-01
        let span: Int64 = 200_000
        let from = startDays + Int64(part) * span
        var days = startDays
        func daysIn(_ year: Int64, _ month: Int64) -> Int64 {
            switch month {
            case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
            case 4, 6, 9, 11: 30
            default: 31
            }
        }
        while days < from + span {
            if days >= from {
                let text = JournalTimestamp.string(millisecondsSinceEpoch: days * 86_400_000)
                let formatted =
                    String(expected.year).leftPad(4) + "-" + String(expected.month).leftPad(2) + "-"
                    + String(expected.day).leftPad(2) + "T00:00:00.000Z"
                if text != formatted {
                    Issue.record("day \(days): \(text) != \(formatted)")
                    return
                }
            }
            days += 1
            expected.day += 1
            if expected.day > daysIn(expected.year, expected.month) {
                expected.day = 1
                expected.month += 1
                if expected.month > 12 {
                    expected.month = 1
                    expected.year += 1
                }
            }
        }
    }

    @Test("extreme values do not trap")
    func extremes() {
        #expect(JournalTimestamp.string(millisecondsSinceEpoch: .max).hasSuffix("Z"))
        #expect(JournalTimestamp.string(millisecondsSinceEpoch: .min).hasPrefix("-"))
    }

    @Test(
        "parse rejects malformed timestamps",
        arguments: [
            "", "2026-11-21", "2026-11-21T23:40:00", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-11-21T24:00:00Z",
            "2026-11-21T23:40:00.Z", "2026-11-21T23:40:00.1234Z", "2026-11-21T23:40:00+01:00",
        ])
    func parseRejects(_ text: String) {
        #expect(JournalTimestamp.parse(text) == nil)
    }

    @Test("parse accepts short fractions")
    func shortFractions() {
        #expect(JournalTimestamp.parse("1970-01-01T00:00:01Z") == 1000)
        #expect(JournalTimestamp.parse("1970-01-01T00:00:01.5Z") == 1500)
        #expect(JournalTimestamp.parse("1970-01-01T00:00:01.05Z") == 1050)
    }
}

extension String {
    fileprivate func leftPad(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
