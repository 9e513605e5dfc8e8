import PushMockCore
import PushMockJSON

/// One intervention the risk engine decided to push: the guide's payload fields.
public struct Intervention: Sendable, Hashable {
    /// A UUID; also the `apns-id`, so a retried or re-sent push keeps its identity.
    public var id: String
    /// `venue_proximity`, `spending_detected`, `risk_alert`, `daily_briefing`, …
    public var type: String
    public var riskLevel: RiskLevel
    public var riskScore: Double
    public var title: String
    public var body: String
    public var venueName: String?
    /// `whistl://intervention/venue`, …
    public var actionURL: String

    public init(
        id: String, type: String, riskLevel: RiskLevel, riskScore: Double, title: String, body: String, venueName: String? = nil,
        actionURL: String
    ) {
        self.id = id
        self.type = type
        self.riskLevel = riskLevel
        self.riskScore = riskScore
        self.title = title
        self.body = body
        self.venueName = venueName
        self.actionURL = actionURL
    }

    /// Briefings and summaries are information, not interventions: no action buttons.
    var category: String { type == "daily_briefing" || type == "weekly_summary" ? "INFO" : "INTERVENTION" }

    /// The template variables (both templates share them; FCM data values must be strings).
    func templateData(token: String) -> JSONObject {
        let critical = riskLevel == .critical
        var data: JSONObject = [
            "token": .string(token),
            "title": .string(title),
            "body": .string(body),
            "type": .string(type),
            "category": .string(category),
            "risk_score": .number(String(riskScore)),
            "risk_score_text": .string(String(riskScore)),
            "action_url": .string(actionURL),
            "intervention_id": .string(id),
            "priority": .string(riskLevel.rawValue),
            "interruption_level": .string(riskLevel.interruptionLevel),
            "thread_id": .string(category == "INFO" ? "whistl-info" : "whistl-intervention"),
            "apns_priority": .string(String(riskLevel.apnsPriority.rawValue)),
            "android_priority": .string(riskLevel.androidPriority),
            "channel_id": .string(riskLevel.channelID),
            "notification_priority": .string(riskLevel.notificationPriority),
            "android_sound": .string(critical ? "critical_intervention" : "intervention"),
            "ttl": .string("\(riskLevel.deliveryTarget.components.seconds)s"),
            // A critical alert plays at full volume even when the phone is muted.
            "sound": critical
                ? .object(["critical": .number("1"), "name": .string("critical-intervention.caf"), "volume": .number("1.0")])
                : .string("intervention.caf"),
        ]
        if let venueName { data["venue_name"] = .string(venueName) }
        return data
    }
}
