import Foundation
import PushMockCore
import PushMockJSON
import PushMockSimulation
import Testing

@Suite("Lint API")
struct LintAPITests {
    @Test("messages name the offending field and value")
    func messageNamesField() throws {
        let findings = LintSample.apns(#"{"aps":{"alert":"Hi","interruption-level":"urgent"}}"#).findings()
        let finding = try #require(findings.first { $0.code == .apnsUnknownInterruptionLevel })
        #expect(finding.field == "aps.interruption-level")
        #expect(finding.message.contains("\"urgent\""))
        #expect(finding.severity == .warning)
        #expect(finding.source.hasPrefix("https://developer.apple.com/"))
    }

    @Test("disabled codes never report")
    func disabledCodes() {
        var configuration = LintConfiguration()
        configuration.disabledCodes = [.apnsMissingPushType]
        let sample = LintSample.apns(#"{"aps":{"alert":"Hi"}}"#, type: nil, configuration: configuration)
        #expect(sample.findings().isEmpty)
    }

    @Test("image keys are configurable, including nested paths")
    func imageKeys() {
        let payload = #"{"aps":{"alert":"Hi"},"media":{"poster":"https://example.com/p.png"}}"#
        #expect(!LintSample.apns(payload).findings().contains { $0.code == .apnsImageWithoutMutableContent })
        var configuration = LintConfiguration()
        configuration.imageURLKeys = ["media.poster"]
        let finding = LintSample.apns(payload, configuration: configuration).findings().first { $0.code == .apnsImageWithoutMutableContent }
        #expect(finding?.field == "media.poster")
    }

    @Test("the entry point taking parsed headers infers the push type like the gateway")
    func fromHeaders() throws {
        let headers = APNsNotificationHeaders(priority: .immediate, topic: "com.example.app.voip")
        let input = APNsLintInput(headers)
        #expect(input.pushType == .voip)
        #expect(input.pushTypeSent == nil)
        #expect(input.bundleID == "com.example.app")
        let findings = APNsLinter.lint(input, payload: try JSONValue(parsing: #"{"caller":"Alice"}"#), now: lintNow)
        #expect(findings.map(\.code) == [.apnsMissingPushType])
    }

    @Test("FCM findings do not depend on snake_case or lowerCamelCase spelling")
    func fcmSpellings() {
        let snake = LintSample.fcm(
            #""data":{"k":"v"},"android":{"priority":"high","ttl":"0s"},"apns":{"fcm_options":{"image":"https://example.com/a.png"}}"#,
            platform: .unknown
        )
        let camel = LintSample.fcm(
            #""data":{"k":"v"},"android":{"priority":"HIGH","ttl":"0s"},"apns":{"fcmOptions":{"image":"https://example.com/a.png"}}"#,
            platform: .unknown
        )
        let snakeFindings = snake.findings()
        #expect(!snakeFindings.isEmpty)
        #expect(snakeFindings == camel.findings())
    }

    @Test("a finding encodes to the documented JSON and back")
    func findingJSON() throws {
        let finding = LintFinding(
            code: .apnsBackgroundHighPriority,
            severity: .warning,
            field: "apns-priority",
            message: "apns-priority is 10 on a \"background\" push",
            source: "https://example.com"
        )
        var written: [UInt8] = []
        JSONWriter.write(into: &written) { writer in finding.write(to: &writer) }
        let parsed = try JSONValue(parsing: written)
        #expect(parsed == finding.jsonValue)
        #expect(parsed["code"]?.stringValue == "apns.background-high-priority")
        #expect(parsed["severity"]?.stringValue == "warning")
        let decoded = try JSONDecoder().decode(LintFinding.self, from: Data(written))
        #expect(decoded == finding)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(LintSeverity.self, from: Data(#""fatal""#.utf8))
        }
    }

    @Test("rule codes are unique, kebab-case and documented in docs/lint-rules.md")
    func catalogue() throws {
        let codes = LintRule.all.map(\.code.rawValue)
        #expect(Set(codes).count == codes.count)
        for rule in LintRule.all {
            #expect(rule.code.rawValue.hasPrefix("\(rule.platform)."))
            #expect(rule.code.rawValue.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" || $0 == "." })
            #expect(!rule.sources.isEmpty && rule.sources.allSatisfy { $0.hasPrefix("https://") })
        }
        let docs = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/lint-rules.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        for rule in LintRule.all {
            #expect(text.contains("`\(rule.code)`"), "docs/lint-rules.md does not list \(rule.code)")
            for source in rule.sources {
                #expect(text.contains(source), "docs/lint-rules.md does not cite \(source) for \(rule.code)")
            }
        }
    }

    @Test("critical-alerts entitlement")
    func entitlement() {
        #expect(!CriticalAlertsEntitlement.none.isGranted(to: "com.example.app"))
        #expect(CriticalAlertsEntitlement.all.isGranted(to: nil))
        #expect(CriticalAlertsEntitlement.bundleIDs(["com.example.app"]).isGranted(to: "com.example.app"))
        #expect(!CriticalAlertsEntitlement.bundleIDs(["com.example.app"]).isGranted(to: nil))
    }
}
