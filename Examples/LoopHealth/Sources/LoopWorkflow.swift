/// Loop's Knock workflows. Each is one Expo template under `pushmock/templates/<file>.expo.json`,
/// rendered with the workflow's trigger data — what Knock does with the workflow's push step.
public struct LoopWorkflow: Sendable, Hashable, CustomStringConvertible {
    /// The Knock workflow key (`knock.workflows.trigger('daily-dose-reminder', …)`).
    public let key: String
    /// The template's file stem.
    public let file: String
    /// `data.type` of the messages it sends: how the app and the batching tell them apart.
    public let type: String

    public var description: String { key }

    public static let doseReminder = LoopWorkflow(key: "daily-dose-reminder", file: "dose-reminder", type: "dose_reminder")
    public static let supplyLow = LoopWorkflow(key: "supply-low-alert", file: "supply-low", type: "supply_alert")
    public static let adherenceMilestone = LoopWorkflow(key: "adherence-milestone", file: "adherence-milestone", type: "milestone")
    public static let labResultsReady = LoopWorkflow(key: "lab-results-ready", file: "lab-results-ready", type: "lab_results")
    public static let protocolUpdated = LoopWorkflow(key: "protocol-updated", file: "protocol-updated", type: "protocol_update")
    public static let weeklyCheckIn = LoopWorkflow(key: "weekly-checkin", file: "weekly-checkin", type: "checkin_reminder")
    /// The summaries the batching sends instead of several alerts of one type.
    public static let supplyBatchAlert = LoopWorkflow(key: "supply-batch-alert", file: "supply-batch-alert", type: "supply_alert")
    public static let doseBatchReminder = LoopWorkflow(key: "dose-batch-reminder", file: "dose-batch-reminder", type: "dose_reminder")

    /// The six workflows of the design, in its order.
    public static let all: [LoopWorkflow] = [
        .doseReminder, .supplyLow, .adherenceMilestone, .labResultsReady, .protocolUpdated, .weeklyCheckIn,
    ]
}
