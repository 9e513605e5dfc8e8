import Foundation
import PushMockCore
import PushMockJSON
import PushMockRecording
import Testing

@testable import PushMockToolkit

@Suite("Policy: frequency caps and spacing")
struct PolicyFrequencyCapTests {
    static let types = #"[{"name":"promo","match":{"path":["$.type","$.message.data.type"],"equals":"promo"}}]"#

    static func checker(_ caps: String, timeZones: String = #"{"default":"Europe/Berlin"}"#) throws -> PolicyChecker {
        PolicyChecker(
            policy: try PolicyFile(parsing: #"{"version":1,"types":\#(types),"timeZones":\#(timeZones),"frequencyCaps":[\#(caps)]}"#))
    }

    static func promo(_ sequence: UInt64, _ time: String, token: String = LinkPolicyFixtures.token, status: Int = 200) -> ExchangeRecord {
        LinkPolicyFixtures.apns(
            #"{"aps":{"alert":"Sale \#(sequence)"},"type":"promo"}"#, sequence: sequence, at: time, token: token, status: status)
    }

    static let weekly = #"{"name":"weekly","types":["promo"],"limit":2,"window":"7d"}"#

    @Test("rolling window: at the limit is fine, one over is a violation")
    func rollingLimit() throws {
        let checker = try Self.checker(Self.weekly)
        let two = [Self.promo(1, "2026-01-05T10:00:00Z"), Self.promo(2, "2026-01-08T10:00:00Z")]
        #expect(checker.check(two).isClean)
        let three = two + [Self.promo(3, "2026-01-11T09:59:59Z")]
        let report = checker.check(three)
        let violation = try #require(report.violations.first)
        #expect(report.violations.count == 1)
        #expect(violation.kind == .frequencyCap)
        #expect(violation.rule == "weekly")
        #expect(violation.notification.sequence == 3)
        #expect(violation.limit == 2)
        #expect(violation.window == "7d")
        #expect(violation.related.map(\.sequence) == [1, 2])
        #expect(violation.message == "3rd promo notification within 7d (limit 2)")
    }

    @Test("rolling window: a notification exactly one window earlier no longer counts")
    func rollingBoundary() throws {
        let checker = try Self.checker(Self.weekly)
        let records = [Self.promo(1, "2026-01-05T10:00:00Z"), Self.promo(2, "2026-01-08T10:00:00Z"), Self.promo(3, "2026-01-12T10:00:00Z")]
        #expect(checker.check(records).isClean)
        let fourth = records + [Self.promo(4, "2026-01-12T10:00:01Z")]
        #expect(checker.check(fourth).violations.map(\.related).map { $0.map(\.sequence) } == [[2, 3]])
    }

    @Test("every notification over the cap is reported, and still counts")
    func overTheCap() throws {
        let checker = try Self.checker(#"{"name":"daily","types":["promo"],"limit":1,"window":"24h"}"#)
        let records = (1...4).map { Self.promo(UInt64($0), "2026-01-05T0\($0):00:00Z") }
        let report = checker.check(records)
        #expect(report.violations.map(\.notification.sequence) == [2, 3, 4])
        #expect(
            report.violations.map(\.message) == [
                "2nd promo notification within 1d (limit 1)", "3rd promo notification within 1d (limit 1)",
                "4th promo notification within 1d (limit 1)",
            ])
        #expect(report.violations.last?.related.map(\.sequence) == [1, 2, 3])
    }

    @Test("a limit of zero forbids the type")
    func zeroLimit() throws {
        let report = try Self.checker(#"{"name":"never","types":["promo"],"limit":0,"window":"1d"}"#).check([
            Self.promo(1, "2026-01-05T10:00:00Z")
        ])
        #expect(report.violations.map(\.message) == ["1st promo notification within 1d (limit 0)"])
    }

    @Test("calendar day in the recipient's zone")
    func calendarDay() throws {
        let checker = try Self.checker(#"{"name":"per-day","types":["promo"],"limit":2,"calendar":"day"}"#)
        // 22:30 UTC on the 5th is already the 6th in Berlin.
        let acrossLocalMidnight = [
            Self.promo(1, "2026-01-05T08:00:00Z"), Self.promo(2, "2026-01-05T12:00:00Z"), Self.promo(3, "2026-01-05T23:30:00Z"),
        ]
        #expect(checker.check(acrossLocalMidnight).isClean)
        let sameLocalDay = [
            Self.promo(1, "2026-01-05T00:30:00Z"), Self.promo(2, "2026-01-05T12:00:00Z"), Self.promo(3, "2026-01-05T22:59:59Z"),
        ]
        let violation = try #require(checker.check(sameLocalDay).violations.first)
        #expect(violation.message == "3rd promo notification in the calendar day 2026-01-05 (Europe/Berlin) (limit 2)")
        #expect(violation.window == "calendar day")
        #expect(violation.localTime == "2026-01-05 23:59:59 +01:00")
    }

    @Test("calendar day on the 23-hour day of the spring DST change")
    func calendarDayDST() throws {
        let checker = try Self.checker(#"{"name":"per-day","types":["promo"],"limit":2,"calendar":"day"}"#)
        // 29 March 2026 in Berlin runs from 28 March 23:00 UTC to 29 March 22:00 UTC.
        let records = [Self.promo(1, "2026-03-28T23:00:00Z"), Self.promo(2, "2026-03-29T12:00:00Z"), Self.promo(3, "2026-03-29T21:59:59Z")]
        #expect(checker.check(records).violations.map(\.notification.sequence) == [3])
        let nextDay = [Self.promo(1, "2026-03-28T23:00:00Z"), Self.promo(2, "2026-03-29T12:00:00Z"), Self.promo(3, "2026-03-29T22:00:00Z")]
        #expect(checker.check(nextDay).isClean)
    }

    @Test("calendar week (ISO, Monday first) and month")
    func calendarWeekAndMonth() throws {
        let weekly = try Self.checker(
            #"{"name":"per-week","types":["promo"],"limit":1,"calendar":"week"}"#, timeZones: #"{"default":"UTC"}"#)
        // Sunday 11 January 2026 ends ISO week 2; Monday the 12th starts week 3.
        #expect(weekly.check([Self.promo(1, "2026-01-11T23:00:00Z"), Self.promo(2, "2026-01-12T00:00:00Z")]).isClean)
        let sameWeek = weekly.check([Self.promo(1, "2026-01-05T00:00:00Z"), Self.promo(2, "2026-01-11T23:59:59Z")])
        // Foundation names UTC "GMT" on Linux and "UTC" elsewhere; the report uses its name.
        let utc = TimeZone(identifier: "UTC")?.identifier ?? "UTC"
        #expect(sameWeek.violations.map(\.message) == ["2nd promo notification in the calendar week 2026-W02 (\(utc)) (limit 1)"])
        let monthly = try Self.checker(
            #"{"name":"per-month","types":["promo"],"limit":1,"calendar":"month"}"#, timeZones: #"{"default":"UTC"}"#)
        #expect(monthly.check([Self.promo(1, "2026-01-31T23:00:00Z"), Self.promo(2, "2026-02-01T00:00:00Z")]).isClean)
        #expect(monthly.check([Self.promo(1, "2026-02-01T00:00:00Z"), Self.promo(2, "2026-02-28T00:00:00Z")]).violations.count == 1)
    }

    @Test("minimum spacing: exactly the spacing is fine, less is a violation")
    func spacing() throws {
        let checker = try Self.checker(#"{"name":"hourly","types":["promo"],"minimumSpacing":"1h"}"#)
        #expect(checker.check([Self.promo(1, "2026-01-05T10:00:00Z"), Self.promo(2, "2026-01-05T11:00:00Z")]).isClean)
        let report = checker.check([Self.promo(1, "2026-01-05T10:00:00Z"), Self.promo(2, "2026-01-05T10:45:00Z")])
        let violation = try #require(report.violations.first)
        #expect(violation.kind == .minimumSpacing)
        #expect(violation.message == "sent 45m after #1 (minimum spacing 1h)")
        #expect(violation.minimumSpacing == "1h")
        #expect(violation.actualSpacing == "45m")
        #expect(violation.related.map(\.sequence) == [1])
    }

    @Test("one cap with a limit and a spacing reports both")
    func limitAndSpacing() throws {
        let checker = try Self.checker(#"{"name":"promo","types":["promo"],"limit":1,"window":"1d","minimumSpacing":"1h"}"#)
        let report = checker.check([Self.promo(1, "2026-01-05T10:00:00Z"), Self.promo(2, "2026-01-05T10:30:00Z")])
        #expect(report.violations.map(\.kind) == [.frequencyCap, .minimumSpacing])
    }

    @Test("caps count per recipient and per type; untyped caps count everything")
    func scope() throws {
        let perRecipient = try Self.checker(Self.weekly)
        let records = [
            Self.promo(1, "2026-01-05T10:00:00Z"), Self.promo(2, "2026-01-05T11:00:00Z", token: LinkPolicyFixtures.otherToken),
            Self.promo(3, "2026-01-05T12:00:00Z"), Self.promo(4, "2026-01-05T13:00:00Z", token: LinkPolicyFixtures.otherToken),
            LinkPolicyFixtures.apns(#"{"aps":{"alert":"dose"},"type":"dose"}"#, sequence: 5, at: "2026-01-05T14:00:00Z"),
        ]
        #expect(perRecipient.check(records).isClean)
        let everything = try Self.checker(#"{"name":"all","limit":2,"window":"1d"}"#)
        let report = everything.check(records)
        #expect(report.violations.map(\.notification.sequence) == [5])
        #expect(report.violations.first?.message == "3rd notification within 1d (limit 2)")
    }

    @Test("rejected and validate-only sends do not count unless the policy says so")
    func rejected() throws {
        let records = [
            Self.promo(1, "2026-01-05T10:00:00Z", status: 410),
            LinkPolicyFixtures.fcm(
                #"{"token":"t","notification":{"title":"x"},"data":{"type":"promo"}}"#, sequence: 2, at: "2026-01-05T10:30:00Z",
                token: LinkPolicyFixtures.token, validateOnly: true),
            Self.promo(3, "2026-01-05T11:00:00Z"), Self.promo(4, "2026-01-05T12:00:00Z"),
        ]
        let checker = try Self.checker(Self.weekly)
        let report = checker.check(records)
        #expect(report.isClean)
        #expect(report.notificationCount == 2)
        var counting = checker
        counting.countRejected = true
        #expect(counting.check(records).violations.map(\.notification.sequence) == [3, 4])
        let fromFile = PolicyChecker(
            policy: try PolicyFile(parsing: #"{"version":1,"types":\#(Self.types),"countRejected":true,"frequencyCaps":[\#(Self.weekly)]}"#)
        )
        #expect(fromFile.countRejected)
        #expect(PolicyChecker(policy: fromFile.policy, countRejected: false).check(records).isClean)
    }

    @Test("records are taken in time order, whatever order they come in")
    func ordering() throws {
        let checker = try Self.checker(Self.weekly + "," + #"{"name":"spacing","types":["promo"],"minimumSpacing":"2h"}"#)
        let records = [
            Self.promo(3, "2026-01-05T12:00:00Z"), Self.promo(1, "2026-01-05T10:00:00Z"), Self.promo(2, "2026-01-05T11:00:00Z"),
        ]
        let report = checker.check(records)
        #expect(report == checker.check(records.reversed()))
        #expect(
            report.violations.map { "\($0.notification.sequence) \($0.kind)" } == [
                "2 minimum-spacing", "3 frequency-cap", "3 minimum-spacing",
            ])
        // Same millisecond: the sequence number decides.
        let tied = [Self.promo(2, "2026-01-05T10:00:00Z"), Self.promo(1, "2026-01-05T10:00:00Z")]
        #expect(
            try Self.checker(#"{"name":"one","types":["promo"],"limit":1,"window":"1h"}"#).check(tied).violations.map(
                \.notification.sequence) == [2])
    }

    @Test("a long recording stays fast")
    func manyNotifications() throws {
        let checker = try Self.checker(#"{"name":"daily","types":["promo"],"limit":3,"window":"1d","minimumSpacing":"1m"}"#)
        let start = LinkPolicyFixtures.time("2026-01-05T00:00:00Z")
        let records = (0..<2000).map { index -> ExchangeRecord in
            var record = Self.promo(UInt64(index + 1), "2026-01-05T00:00:00Z")
            record.timeMilliseconds = start + Int64(index) * 600_000
            return record
        }
        // Every 10 minutes: 144 a day, so all but the first three of each rolling day break the cap.
        let report = checker.check(records)
        #expect(report.violations(.frequencyCap).count == 2000 - 3)
        #expect(report.violations.last?.related.count == 50)
        #expect(report.violations(.minimumSpacing).isEmpty)
    }
}

@Suite("Policy: Expo records")
struct PolicyExpoTests {
    /// An accepted Expo send of `body` relayed to `tokens`, as the gateway records it.
    static func expo(_ body: String, sequence: UInt64, at iso: String, tokens: [String]) -> ExchangeRecord {
        ExchangeRecord(
            sequence: sequence,
            timeMilliseconds: LinkPolicyFixtures.time(iso),
            platform: .expo,
            request: RequestInfo(
                method: "POST",
                path: "/--/api/v2/push/send",
                headers: HTTPHeaderList(),
                body: RecordedBody(capturing: Array(body.utf8)),
                bodySize: body.utf8.count
            ),
            notification: NotificationInfo(project: "@acme/app", resolvedTokens: tokens),
            response: ResponseInfo(status: 200)
        )
    }

    @Test("frequency caps count every recipient of an Expo request")
    func frequencyCap() throws {
        let checker = PolicyChecker(
            policy: try PolicyFile(
                parsing: #"""
                    {"version":1,"types":[{"name":"promo","match":{"path":["$.data.type","$[*].data.type"],"equals":"promo"}}],
                     "timeZones":{"default":"Europe/Berlin"},
                     "frequencyCaps":[{"name":"daily","types":["promo"],"limit":1,"window":"24h"}]}
                    """#))
        let first = Self.expo(
            #"[{"to":"A","title":"Sale","data":{"type":"promo"}},{"to":"B","title":"Sale","data":{"type":"promo"}}]"#, sequence: 1,
            at: "2026-01-05T10:00:00Z", tokens: ["A", "B"])
        let second = Self.expo(
            #"{"to":"B","title":"Sale again","data":{"type":"promo"}}"#, sequence: 2, at: "2026-01-05T12:00:00Z", tokens: ["B"])
        let report = checker.check([first, second])
        #expect(report.violations.count == 1)
        #expect(report.violations.first?.notification.sequence == 2)
    }
}

/// The one-line summaries `pushmock recordings` prints and expectation failures quote.
@Suite("Record summaries")
struct RecordSummaryTests {
    @Test("an Expo request of one message: the token's bracketed part, the tickets, title and body")
    func expoOneMessage() throws {
        var record = PolicyExpoTests.expo(
            #"[{"to":"ExponentPushToken[AbCdEfGhIjKlMnOpQrStUv]","title":"Low FODMAP lunch?","body":"2 left today"}]"#, sequence: 4,
            at: "2026-11-30T19:22:49Z", tokens: ["ExponentPushToken[AbCdEfGhIjKlMnOpQrStUv]"])
        record.annotations["tickets"] = "ok 1"
        #expect(
            RecordSummary(record).description
                == #"#4  2026-11-30T19:22:49.000Z  expo  Expo[AbCd…StUv]  @acme/app  200 (tickets: ok 1)  "Low FODMAP lunch?" / "2 left today""#
        )
    }

    @Test("an Expo request of many messages: how many recipients, the first message's title")
    func expoManyMessages() throws {
        var record = PolicyExpoTests.expo(
            #"{"to":["ExponentPushToken[a]","ExponentPushToken[b]"],"title":"Sale"}"#, sequence: 7, at: "2026-11-30T19:32:00Z",
            tokens: ["ExponentPushToken[a]", "ExponentPushToken[b]"])
        record.annotations["tickets"] = "ok 1, DeviceNotRegistered 1"
        let summary = RecordSummary(record)
        #expect(summary.token == nil && summary.recipientCount == 2)
        #expect(
            summary.description
                == #"#7  2026-11-30T19:32:00.000Z  expo  2 recipients  @acme/app  200 (tickets: ok 1, DeviceNotRegistered 1)  "Sale""#)
    }

    @Test("check reports name an Expo token by its bracketed part too")
    func expoReference() throws {
        var record = PolicyExpoTests.expo(
            #"[{"to":"ExponentPushToken[AbCdEfGhIjKlMnOpQrStUv]","title":"Low FODMAP lunch?"}]"#, sequence: 4, at: "2026-11-30T19:22:49Z",
            tokens: ["ExponentPushToken[AbCdEfGhIjKlMnOpQrStUv]"])
        record.notification?.token = "ExponentPushToken[AbCdEfGhIjKlMnOpQrStUv]"
        #expect(
            NotificationReference(record: record).description == #"#4 2026-11-30T19:22:49.000Z expo Expo[AbCd…StUv] "Low FODMAP lunch?""#)
        #expect(TokenText.short("ExponentPushToken[abc]", keep: 8, limit: 12) == "Expo[abc]")
        #expect(TokenText.short("ExpoPushToken[AbCdEfGhIjKlMnOpQrStUv]", keep: 8, limit: 12) == "Expo[AbCd…StUv]")
        #expect(TokenText.short("dQw4w9WgXcQ:APA91b", keep: 8, limit: 12) == "dQw4w9Wg…")
    }

    @Test("APNs: a long token is cut, a short one kept", arguments: [("00fc13adff785122b4ad", "00fc13adff78…"), ("00fc13ad", "00fc13ad")])
    func apnsToken(token: String, shown: String) {
        #expect(
            RecordSummary(apnsRecord(1, token: token)).description.contains("  apns  \(shown)  com.example.app  200  \"Hi\" / \"there\""))
    }
}
