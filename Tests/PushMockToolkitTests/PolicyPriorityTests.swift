import PushMockCore
import PushMockRecording
import PushMockToolkit
import Testing

@Suite("Policy: priority rules")
struct PolicyPriorityTests {
    static let policy = #"""
        {"version":1,
         "types":[{"name":"dose-reminder","match":{"path":["$.type","$.message.data.type"],"equals":"dose_reminder"}}],
         "priorityRules":[
           {"name":"silent-priority-5","match":{"silent":true},"priority":5},
           {"name":"doses-immediately","types":["dose-reminder"],"priority":10,"androidPriority":"high"}]}
        """#

    static func checker() throws -> PolicyChecker { PolicyChecker(policy: try PolicyFile(parsing: policy)) }

    @Test(
        "APNs",
        arguments: [
            (#"{"aps":{"content-available":1}}"#, "background", 5, [String]()),
            (#"{"aps":{"content-available":1}}"#, "background", 10, ["silent-priority-5"]),
            (#"{"aps":{"content-available":1}}"#, "alert", 10, ["silent-priority-5"]),
            (#"{"aps":{"content-available":1,"alert":"x"}}"#, "alert", 10, []),
            (#"{"aps":{"alert":"x"},"type":"dose_reminder"}"#, "alert", 10, []),
            (#"{"aps":{"alert":"x"},"type":"dose_reminder"}"#, "alert", 5, ["doses-immediately"]),
            (#"{"aps":{"alert":"x"},"type":"dose_reminder"}"#, "alert", 1, ["doses-immediately"]),
        ])
    func apns(payload: String, pushType: String, priority: Int, broken: [String]) throws {
        let record = LinkPolicyFixtures.apns(payload, pushType: pushType, priority: priority)
        let report = try Self.checker().check([record])
        #expect(report.violations.map(\.rule) == broken)
        #expect(report.violations.allSatisfy { $0.kind == .priority && $0.actualPriority == String(priority) })
    }

    @Test("APNs without a recorded priority counts as 10, as APNs assumes")
    func apnsDefault() throws {
        var record = LinkPolicyFixtures.apns(#"{"aps":{"content-available":1}}"#, pushType: "background", priority: nil)
        record.notification?.priority = nil
        let violation = try #require(try Self.checker().check([record]).violations.first)
        #expect(violation.message == "apns-priority 10; the rule allows 5")
        #expect(violation.allowedPriorities == ["5"])
    }

    @Test(
        "FCM: apns-priority from apns.headers, Android priority with FCM's defaults",
        arguments: [
            (#"{"token":"t","data":{"sync":"1"},"apns":{"headers":{"apns-priority":"10"}}}"#, ["silent-priority-5"]),
            (#"{"token":"t","data":{"sync":"1"},"apns":{"headers":{"apns-priority":"5"}}}"#, []),
            (#"{"token":"t","data":{"sync":"1"}}"#, []),
            (#"{"token":"t","notification":{"title":"x"},"data":{"type":"dose_reminder"}}"#, []),
            (
                #"{"token":"t","notification":{"title":"x"},"data":{"type":"dose_reminder"},"android":{"priority":"normal"}}"#,
                ["doses-immediately"]
            ),
            (#"{"token":"t","data":{"type":"dose_reminder"}}"#, ["doses-immediately"]),
            (
                #"{"token":"t","notification":{"title":"x"},"data":{"type":"dose_reminder"},"apns":{"headers":{"apns-priority":"5"}},"android":{"priority":"HIGH"}}"#,
                ["doses-immediately"]
            ),
        ])
    func fcm(message: String, broken: [String]) throws {
        let report = try Self.checker().check([LinkPolicyFixtures.fcm(message)])
        #expect(report.violations.map(\.rule) == broken, "\(report)")
    }

    @Test("the FCM Android violation says what was sent")
    func androidMessage() throws {
        let record = LinkPolicyFixtures.fcm(#"{"token":"t","data":{"type":"dose_reminder"}}"#)
        let violation = try #require(try Self.checker().check([record]).violations(rule: "doses-immediately").first)
        #expect(violation.message == "android.priority normal; the rule allows high")
        #expect(violation.actualPriority == "normal")
    }
}
