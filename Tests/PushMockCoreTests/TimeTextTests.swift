import Foundation
import PushMockCore
import Testing

@Suite("Times as people type them")
struct TimeTextTests {
    /// 2026-11-21T10:30:15.250Z: far from midnight in every zone used below, so a time of day
    /// stays on the same date.
    static let now = Timestamp(millisecondsSince1970: 1_795_257_015_250)
    static let utc = TimeZone(identifier: "UTC")!

    @Test(
        "every form, against a fixed now",
        arguments: [
            ("now", 1_795_257_015_250),
            (" NOW ", 1_795_257_015_250),
            ("2026-11-21T10:00:00Z", 1_795_255_200_000),
            ("2026-11-21T11:00:00+01:00", 1_795_255_200_000),
            ("1795255200000", 1_795_255_200_000),
            ("-2h", 1_795_249_815_250),
            ("+5m", 1_795_257_315_250),
            ("-90s", 1_795_256_925_250),
            ("-1h30m", 1_795_251_615_250),
            ("-250ms", 1_795_257_015_000),
            ("-90", 1_795_256_925_250),
            ("10:02", 1_795_255_320_000),
            ("10:02:30", 1_795_255_350_000),
            ("0:00", 1_795_219_200_000),
            ("23:59:59", 1_795_305_599_000),
        ] as [(String, Int64)]
    )
    func forms(text: String, expected: Int64) throws {
        let resolved = try TimeText.resolve(
            text, now: Self.now, timeZone: Self.utc, minimumMillisecondDigits: TimeText.millisecondDigitsForCommandLines)
        #expect(resolved.millisecondsSince1970 == expected)
    }

    @Test("a time of day is in the given zone")
    func timeZone() throws {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        // 10:02 in Berlin (UTC+1 in November) is 09:02Z.
        let resolved = try TimeText.resolve("10:02", now: Self.now, timeZone: berlin)
        #expect(resolved == Timestamp(millisecondsSince1970: 1_795_251_720_000))
    }

    @Test(
        "short numbers: milliseconds for the query language, seconds from now on command lines",
        arguments: [
            ("-90", 1, -90),
            ("-90", 10, 1_795_256_925_250),
            ("+90", 1, 90),
            ("0", 1, 0),
            ("-5", 1, -5),
            ("-1795255200000", 10, -1_795_255_200_000),
        ] as [(String, Int, Int64)]
    )
    func shortNumbers(text: String, digits: Int, expected: Int64) throws {
        let resolved = try TimeText.resolve(text, now: Self.now, timeZone: Self.utc, minimumMillisecondDigits: digits)
        #expect(resolved.millisecondsSince1970 == expected)
        #expect(TimeText.needsClock(text, minimumMillisecondDigits: digits) == (expected != Int64(text)))
    }

    @Test("a bare short number on a command line is not a time", arguments: ["600", "0"])
    func shortBareNumber(text: String) {
        #expect(throws: TimeTextError.self) {
            try TimeText.resolve(text, now: Self.now, minimumMillisecondDigits: TimeText.millisecondDigitsForCommandLines)
        }
    }

    @Test(
        "what is not a time says what is",
        arguments: [
            ("yesterday", "yesterday is not a time: use 2026-11-21T10:02:00Z, milliseconds, 10:02, now, +5m or -90s"),
            ("-2 hours", "-2 hours is not a time: use 2026-11-21T10:02:00Z, milliseconds, 10:02, now, +5m or -90s"),
            ("2h", "2h is not a time: use 2026-11-21T10:02:00Z, milliseconds, 10:02, now, +5m or -90s"),
            ("10:02:03:04", "10:02:03:04 is not a time: use 2026-11-21T10:02:00Z, milliseconds, 10:02, now, +5m or -90s"),
            ("10:", "10: is not a time: use 2026-11-21T10:02:00Z, milliseconds, 10:02, now, +5m or -90s"),
            ("", " is not a time: use 2026-11-21T10:02:00Z, milliseconds, 10:02, now, +5m or -90s"),
            ("24:00", "24:00 is not a time of day"),
            ("10:60", "10:60 is not a time of day"),
            ("10:02:60", "10:02:60 is not a time of day"),
        ]
    )
    func refused(text: String, message: String) {
        #expect(throws: TimeTextError(message)) { try TimeText.resolve(text, now: Self.now, timeZone: Self.utc) }
    }

    @Test(
        "times outside years 1-9999 are refused as such",
        arguments: ["-9223372036854775808", "9223372036854775807", "-62135596800001", "253402300800000", "+3000000d"]
    )
    func outOfRange(text: String) {
        #expect(
            throws: TimeTextError(
                "\(text) is out of range: a time must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z", kind: .outOfRange)
        ) { try TimeText.resolve(text, now: Self.now, timeZone: Self.utc) }
        #expect(throws: Never.self) { try TimeText.resolve("-62135596800000", now: Self.now, timeZone: Self.utc) }
    }

    @Test(
        "which forms read the clock",
        arguments: [
            ("2026-11-21T10:00:00Z", false), ("1795255200000", false), ("now", true), ("-2h", true), ("10:02", true),
        ]
    )
    func needsClock(text: String, expected: Bool) {
        #expect(TimeText.needsClock(text) == expected)
    }
}
