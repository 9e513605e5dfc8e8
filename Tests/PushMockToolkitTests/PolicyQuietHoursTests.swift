import PushMockCore
import PushMockRecording
import PushMockToolkit
import Testing

@Suite("Policy: quiet hours and time zones")
struct PolicyQuietHoursTests {
    static func policy(_ quietHours: String, timeZones: String = #"{"default":"Europe/Berlin"}"#, types: String = "[]") throws
        -> PolicyChecker
    {
        PolicyChecker(
            policy: try PolicyFile(parsing: #"{"version":1,"types":\#(types),"timeZones":\#(timeZones),"quietHours":[\#(quietHours)]}"#))
    }

    static let night = #"{"name":"night","start":"22:00","end":"08:00"}"#
    static let alert = #"{"aps":{"alert":{"title":"Hello"}}}"#

    @Test(
        "a period crossing midnight: start inclusive, end exclusive",
        arguments: [
            // Berlin is UTC+1 in January.
            ("2026-01-15T20:59:59Z", false), ("2026-01-15T21:00:00Z", true), ("2026-01-15T22:59:00Z", true),
            ("2026-01-15T23:00:00Z", true), ("2026-01-16T03:00:00Z", true), ("2026-01-16T06:59:59Z", true),
            ("2026-01-16T07:00:00Z", false), ("2026-01-16T12:00:00Z", false),
        ])
    func midnight(time: String, inside: Bool) throws {
        let report = try Self.policy(Self.night).check([LinkPolicyFixtures.apns(Self.alert, at: time)])
        #expect(report.violations(.quietHours).count == (inside ? 1 : 0))
    }

    @Test(
        "a period within one day",
        arguments: [
            ("2026-01-15T11:59:00Z", false), ("2026-01-15T12:00:00Z", true), ("2026-01-15T13:59:59Z", true),
            ("2026-01-15T14:00:00Z", false),
        ])
    func sameDay(time: String, inside: Bool) throws {
        let report = try Self.policy(#"{"name":"siesta","start":"13:00","end":"15:00"}"#).check([
            LinkPolicyFixtures.apns(Self.alert, at: time)
        ])
        #expect(report.violations(.quietHours).count == (inside ? 1 : 0))
    }

    /// Europe/Berlin switches to summer time on Sunday 29 March 2026 at 01:00 UTC and back on
    /// Sunday 25 October 2026 at 01:00 UTC: the same UTC hour is inside quiet hours on one side
    /// of the change and outside on the other.
    @Test(
        "daylight-saving changes in Europe/Berlin",
        arguments: [
            ("2026-03-28T06:30:00Z", true, "2026-03-28 07:30:00 +01:00"),
            ("2026-03-29T06:30:00Z", false, "2026-03-29 08:30:00 +02:00"),
            ("2026-03-28T20:30:00Z", false, "2026-03-28 21:30:00 +01:00"),
            ("2026-03-29T20:30:00Z", true, "2026-03-29 22:30:00 +02:00"),
            ("2026-03-29T00:59:00Z", true, "2026-03-29 01:59:00 +01:00"),
            ("2026-03-29T01:00:00Z", true, "2026-03-29 03:00:00 +02:00"),
            ("2026-10-24T06:30:00Z", false, "2026-10-24 08:30:00 +02:00"),
            ("2026-10-25T06:30:00Z", true, "2026-10-25 07:30:00 +01:00"),
            ("2026-10-25T00:30:00Z", true, "2026-10-25 02:30:00 +02:00"),
            ("2026-10-25T01:30:00Z", true, "2026-10-25 02:30:00 +01:00"),
        ])
    func daylightSaving(time: String, inside: Bool, local: String) throws {
        let checker = try Self.policy(#"{"name":"night","start":"22:00","end":"08:00"}"#)
        let report = checker.check([LinkPolicyFixtures.apns(Self.alert, at: time)])
        #expect(report.violations(.quietHours).count == (inside ? 1 : 0))
        if inside {
            #expect(report.violations.first?.localTime == local)
            #expect(report.violations.first?.timeZone == "Europe/Berlin")
        }
    }

    @Test(
        "exemptions",
        arguments: [
            (#"{"aps":{"alert":"x","interruption-level":"critical"}}"#, "alert", true),
            (#"{"aps":{"alert":"x","interruption-level":"time-sensitive"}}"#, "alert", true),
            (#"{"aps":{"alert":"x","interruption-level":"passive"}}"#, "alert", false),
            (#"{"aps":{"alert":"x","interruption-level":"active"}}"#, "alert", false),
            (#"{"aps":{"alert":"x","sound":{"critical":1,"name":"default","volume":1}}}"#, "alert", true),
            (#"{"aps":{"content-available":1}}"#, "background", true),
            (#"{"aps":{"content-available":1}}"#, "alert", true),
            (#"{"aps":{"content-available":1,"alert":"x"}}"#, "alert", false),
            (#"{"aps":{},"kind":"security"}"#, "alert", true),
            (#"{"aps":{"alert":"x"},"kind":"promo"}"#, "alert", false),
            (#"{"aps":{"alert":"x"},"urgent":true}"#, "alert", true),
        ])
    func exemptions(payload: String, pushType: String, exempt: Bool) throws {
        let checker = try Self.policy(
            #"{"name":"night","start":"22:00","end":"08:00","exemptTypes":["security"],"exempt":{"path":"$.urgent","equals":true}}"#,
            types: #"[{"name":"security","match":{"path":"$.kind","equals":"security"}}]"#
        )
        let record = LinkPolicyFixtures.apns(
            payload, at: "2026-01-15T23:00:00Z", pushType: pushType, priority: pushType == "background" ? 5 : 10)
        #expect(checker.check([record]).violations.isEmpty == exempt)
    }

    @Test("exemptions can be switched off")
    func noExemptions() throws {
        let checker = try Self.policy(#"{"name":"night","start":"22:00","end":"08:00","exemptInterruptionLevels":[],"exemptSilent":false}"#)
        let records = [
            LinkPolicyFixtures.apns(#"{"aps":{"alert":"x","interruption-level":"critical"}}"#, sequence: 1, at: "2026-01-15T23:00:00Z"),
            LinkPolicyFixtures.apns(
                #"{"aps":{"content-available":1}}"#, sequence: 2, at: "2026-01-15T23:05:00Z", pushType: "background", priority: 5),
        ]
        #expect(checker.check(records).violations.map(\.notification.sequence) == [1, 2])
    }

    @Test("a rule limited to some types")
    func typedRule() throws {
        let checker = try Self.policy(
            #"{"name":"no-night-marketing","start":"20:00","end":"09:00","types":["marketing"]}"#,
            types: #"[{"name":"marketing","match":{"path":"$.type","equals":"marketing"}}]"#
        )
        let records = [
            LinkPolicyFixtures.apns(#"{"aps":{"alert":"x"},"type":"marketing"}"#, sequence: 1, at: "2026-01-15T20:00:00Z"),
            LinkPolicyFixtures.apns(#"{"aps":{"alert":"x"},"type":"dose_reminder"}"#, sequence: 2, at: "2026-01-15T20:00:00Z"),
        ]
        let report = checker.check(records)
        #expect(report.violations.map(\.notification.sequence) == [1])
        #expect(report.violations.first?.notificationType == "marketing")
    }

    @Test("time zones: per recipient, then payload, then default")
    func timeZoneSources() throws {
        let checker = try Self.policy(
            Self.night,
            timeZones:
                #"{"default":"Europe/Berlin","paths":["$.tz","$.message.data.tz"],"byRecipient":{"\#(LinkPolicyFixtures.otherToken.uppercased())":"Asia/Tokyo"}}"#
        )
        // 12:30 UTC: 13:30 Berlin, 08:30 New York, 21:30 Tokyo — only Tokyo-local at 23:30 when at 14:30 UTC.
        let records = [
            LinkPolicyFixtures.apns(#"{"aps":{"alert":"x"}}"#, sequence: 1, at: "2026-01-15T14:30:00Z"),
            LinkPolicyFixtures.apns(#"{"aps":{"alert":"x"},"tz":"America/New_York"}"#, sequence: 2, at: "2026-01-15T12:30:00Z"),
            LinkPolicyFixtures.apns(
                #"{"aps":{"alert":"x"},"tz":"America/New_York"}"#, sequence: 3, at: "2026-01-15T14:30:00Z",
                token: LinkPolicyFixtures.otherToken),
            LinkPolicyFixtures.fcm(
                #"{"token":"t","notification":{"title":"x"},"data":{"tz":"+05:30"}}"#, sequence: 4, at: "2026-01-15T17:00:00Z", token: "t"),
        ]
        let report = checker.check(records)
        #expect(report.violations.map(\.notification.sequence) == [2, 3, 4])
        #expect(report.violations.map(\.timeZone) == ["America/New_York", "Asia/Tokyo", "GMT+0530"])
        #expect(
            report.violations.map(\.localTime) == [
                "2026-01-15 07:30:00 -05:00", "2026-01-15 23:30:00 +09:00", "2026-01-15 22:30:00 +05:30",
            ])
    }

    @Test("an unknown zone in the payload is reported and the next source used")
    func unknownPayloadZone() throws {
        let checker = try Self.policy(Self.night, timeZones: #"{"default":"Europe/Berlin","paths":["$.tz","$.zone"]}"#)
        let record = LinkPolicyFixtures.apns(
            #"{"aps":{"alert":"x"},"tz":"Europe/Atlantis","zone":"Asia/Tokyo"}"#, at: "2026-01-15T14:30:00Z")
        let report = checker.check([record])
        #expect(report.violations.map(\.kind) == [.timeZone, .quietHours])
        #expect(report.violations[0].message == #"$.tz names the unknown time zone "Europe/Atlantis"; Asia/Tokyo was used instead"#)
        #expect(report.violations[1].timeZone == "Asia/Tokyo")
        let fallsBack = LinkPolicyFixtures.apns(#"{"aps":{"alert":"x"},"tz":"Europe/Atlantis"}"#, at: "2026-01-15T22:30:00Z")
        #expect(checker.check([fallsBack]).violations.map(\.timeZone) == ["Europe/Berlin", "Europe/Berlin"])
    }

    @Test("topic sends: one decision per recipient in its own zone")
    func topicFanOut() throws {
        let checker = try Self.policy(
            Self.night, timeZones: #"{"default":"UTC","byRecipient":{"tokyo":"Asia/Tokyo","berlin":"Europe/Berlin"}}"#)
        let record = LinkPolicyFixtures.fcm(
            #"{"topic":"news","notification":{"title":"News"}}"#,
            at: "2026-01-15T14:30:00Z",
            token: nil,
            topic: "news",
            resolvedTokens: ["berlin", "tokyo", "utc"]
        )
        let report = checker.check([record])
        #expect(report.violations.map(\.recipient) == ["tokyo"])
        #expect(report.violations.first?.notification.description == "#1 2026-01-15T14:30:00.000Z fcm topic news \"News\"")
    }

    @Test("the violation names the notification and the rule")
    func violationContent() throws {
        let record = LinkPolicyFixtures.apns(
            #"{"aps":{"alert":{"title":"Time for your Semaglutide"}}}"#, sequence: 7, at: "2026-01-15T22:00:00Z")
        let violation = try #require(try Self.policy(Self.night).check([record]).violations.first)
        #expect(violation.rule == "night")
        #expect(violation.kind == .quietHours)
        #expect(violation.quietPeriod == "22:00–08:00")
        #expect(violation.recipient == LinkPolicyFixtures.token)
        #expect(violation.notification.sequence == 7)
        #expect(violation.notification.title == "Time for your Semaglutide")
        #expect(violation.notification.messageID == "00000000-0000-4000-8000-000000000007")
        #expect(violation.message == "sent at 23:00 local time (Europe/Berlin), inside quiet hours 22:00–08:00")
    }
}
