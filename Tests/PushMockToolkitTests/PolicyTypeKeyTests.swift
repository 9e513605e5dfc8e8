import Foundation
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockToolkit
import Testing

@Suite("Policy: where a notification's type comes from")
struct PolicyTypeKeyTests {
    static let policy = #"""
        {"version": 1,
         "types": [
           {"name": "dose", "match": {"collapseId": "dose-reminder"}},
           {"name": "lab", "match": {"path": "$.aps.category", "equals": "LAB_RESULTS"}},
           {"name": "promo", "match": {"path": ["$.kind", "$.message.data.kind"], "equals": "promo"}}],
         "frequencyCaps": [{"name": "one-dose-per-day", "types": ["dose"], "limit": 1, "calendar": "day"}]}
        """#

    static func withCollapseID(_ record: ExchangeRecord, _ identifier: String) -> ExchangeRecord {
        var record = record
        record.notification?.collapseID = identifier
        return record
    }

    @Test(
        "collapse id, APNs category, payload key (APNs and FCM data), FCM collapse key",
        arguments: [
            (withCollapseID(LinkPolicyFixtures.apns(#"{"aps":{"alert":"a"}}"#), "dose-reminder"), "dose"),
            (LinkPolicyFixtures.apns(#"{"aps":{"alert":"a","category":"LAB_RESULTS"}}"#), "lab"),
            (LinkPolicyFixtures.apns(#"{"aps":{"alert":"a"},"kind":"promo"}"#), "promo"),
            (LinkPolicyFixtures.fcm(#"{"token":"t","notification":{"title":"a"},"data":{"kind":"promo"}}"#), "promo"),
            (LinkPolicyFixtures.fcm(#"{"token":"t","notification":{"title":"a"},"android":{"collapse_key":"dose-reminder"}}"#), "dose"),
            (
                LinkPolicyFixtures.fcm(
                    #"{"token":"t","notification":{"title":"a"},"apns":{"headers":{"apns-collapse-id":"dose-reminder"}}}"#), "dose"
            ),
            (LinkPolicyFixtures.apns(#"{"aps":{"alert":"a"}}"#), nil),
        ] as [(ExchangeRecord, String?)]
    )
    func typeKeys(record: ExchangeRecord, expected: String?) throws {
        let checker = PolicyChecker(policy: try PolicyFile(parsing: Self.policy))
        #expect(checker.type(of: record) == expected)
    }

    @Test("a cap counts per type: the second dose of the day by collapse id is a violation")
    func capByCollapseID() throws {
        let checker = PolicyChecker(policy: try PolicyFile(parsing: Self.policy))
        let records = [
            Self.withCollapseID(
                LinkPolicyFixtures.apns(#"{"aps":{"alert":"a"}}"#, sequence: 1, at: "2026-03-28T09:00:00Z"), "dose-reminder"),
            LinkPolicyFixtures.apns(#"{"aps":{"alert":"b","category":"LAB_RESULTS"}}"#, sequence: 2, at: "2026-03-28T10:00:00Z"),
            Self.withCollapseID(
                LinkPolicyFixtures.apns(#"{"aps":{"alert":"c"}}"#, sequence: 3, at: "2026-03-28T11:00:00Z"), "dose-reminder"),
        ]
        let report = checker.check(records)
        #expect(report.violations.map(\.notification.sequence) == [3])
        #expect(report.violations.first?.kind == .frequencyCap)
        #expect(report.violations.first?.notificationType == "dose")
    }
}
