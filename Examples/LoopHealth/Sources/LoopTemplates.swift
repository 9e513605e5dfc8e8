import Foundation
public import PushMockJSON
public import PushMockSender

/// The Expo templates of Loop's workflows, read from a directory (`pushmock/templates/`) and
/// rendered into Expo push messages — the push step of a Knock workflow.
public struct LoopTemplates: Sendable {
    private let templates: [String: NotificationTemplate]

    /// Reads `<directory>/<workflow file>.expo.json` for every workflow in `workflows`.
    public init(directory: String, workflows: [LoopWorkflow] = LoopWorkflow.all + [.supplyBatchAlert, .doseBatchReminder]) throws {
        var templates: [String: NotificationTemplate] = [:]
        for workflow in workflows {
            let text = try String(contentsOfFile: "\(directory)/\(workflow.file).expo.json", encoding: .utf8)
            templates[workflow.key] = try NotificationTemplate(json: text)
        }
        self.templates = templates
    }

    /// One message per push token of the recipient, rendered with `data`.
    public func messages(_ workflow: LoopWorkflow, data: JSONObject, to tokens: [String]) throws -> [ExpoPushMessage] {
        guard let template = templates[workflow.key] else {
            throw LoopNotificationError.unknownWorkflow(workflow.key)
        }
        guard case .object(let rendered) = try template.render(data) else {
            throw LoopNotificationError.templateNotAnObject(workflow.key)
        }
        return tokens.map { ExpoPushMessage(rendered: rendered, to: $0) }
    }
}

public enum LoopNotificationError: Error, Hashable {
    case unknownWorkflow(String)
    case templateNotAnObject(String)
    case unknownRecipient(String)
}

extension ExpoPushMessage {
    /// The typed members from a rendered Expo message; the rest (`categoryId`,
    /// `interruptionLevel`, `collapseId`, `richContent`, …) as they are.
    init(rendered object: JSONObject, to token: String) {
        let typed: Set<String> = ["to", "title", "body", "data", "sound", "badge", "ttl", "priority", "channelId"]
        var extra = JSONObject()
        for member in object.members where !typed.contains(member.key) {
            extra.append(key: member.key, value: member.value)
        }
        self.init(
            to: token,
            title: object["title"]?.stringValue,
            body: object["body"]?.stringValue,
            data: object["data"]?.objectValue,
            sound: object["sound"]?.stringValue,
            badge: object["badge"]?.intValue,
            ttl: object["ttl"]?.intValue,
            priority: object["priority"]?.stringValue,
            channelID: object["channelId"]?.stringValue,
            extra: extra
        )
    }
}
