import PushMockCore
import PushMockJSON
public import PushMockRecording

/// Checks every push in a recording against a ``ContractFile``: finds the app data, reads the
/// notification type, validates with each contract that applies.
public struct ContractChecker: Sendable {
    public var contracts: ContractFile
    /// Check rejected sends too (default: only those the service accepted).
    public var includeRejected: Bool

    public init(contracts: ContractFile, includeRejected: Bool = false) {
        self.contracts = contracts
        self.includeRejected = includeRejected
    }

    public func check(_ records: some Sequence<ExchangeRecord>) -> ContractReport {
        var count = 0
        var violations: [ContractViolation] = []
        for record in records {
            guard let platform = record.platform.pushService, !NotificationPayloadFacts.isExpoReceiptsRequest(record) else { continue }
            if !includeRejected && (record.response.status != 200 || NotificationPayloadFacts.isValidateOnly(record)) { continue }
            // An Expo request of several messages: each message against the contracts.
            for notification in RecordedNotification.all(in: record, platform: platform) {
                count += 1
                violations += check(notification.facts, reference: notification.reference)
            }
        }
        return ContractReport(name: contracts.name, notificationCount: count, violations: violations)
    }

    func check(_ facts: NotificationPayloadFacts, reference: NotificationReference) -> [ContractViolation] {
        guard let payload = facts.payload else {
            return [ContractViolation(notification: reference, contract: "(payload)", message: "the request body is not JSON")]
        }
        let data = contracts.dataPaths.lazy.compactMap { $0.evaluate(payload).first }.first
        let type = data?[contracts.typeField]?.stringValue
        let subject = PolicySubject(facts: facts, type: nil)
        var applied = 0
        var found: [ContractViolation] = []
        for contract in contracts.contracts {
            if let types = contract.types { guard let type, types.contains(type) else { continue } }
            if let match = contract.match, !match.matches(subject) { continue }
            applied += 1
            let instance: JSONValue?
            if let target = contract.target { instance = target.evaluate(payload).first } else { instance = data }
            guard let instance else {
                let place = contract.target.map { DeepLinkLocation.format($0.components) } ?? "the app data"
                found.append(
                    ContractViolation(
                        notification: reference, contract: contract.name, notificationType: type, message: "\(place) is missing"))
                continue
            }
            for problem in contract.schema.validate(instance) {
                found.append(
                    ContractViolation(
                        notification: reference, contract: contract.name, notificationType: type, instancePath: problem.instancePath,
                        schemaPath: problem.schemaPath, keyword: problem.keyword, message: problem.message))
            }
        }
        if contracts.requireContract,
            !contracts.contracts.contains(where: { $0.types.map { types in type.map(types.contains) ?? false } ?? false })
        {
            let what = type.map { "type \"\($0)\"" } ?? "a push without \(contracts.typeField)"
            found.append(
                ContractViolation(
                    notification: reference, contract: "(requireContract)", notificationType: type,
                    message: "no contract covers \(what)"))
        }
        _ = applied
        return found
    }
}

/// One way a push breaks a contract: shaped like a lint finding (`code`, `field`, `message`),
/// with the notification it concerns.
public struct ContractViolation: Sendable, Hashable, Codable, CustomStringConvertible {
    public var notification: NotificationReference
    /// The contract's name.
    public var contract: String
    public var notificationType: String?
    /// `contract.<name>.<keyword>`, like a lint code.
    public var code: String
    /// JSON pointer into the validated value (`/entityId`).
    public var field: String?
    public var schemaPath: String?
    public var message: String

    public init(
        notification: NotificationReference, contract: String, notificationType: String? = nil, instancePath: String? = nil,
        schemaPath: String? = nil, keyword: String? = nil, message: String
    ) {
        self.notification = notification
        self.contract = contract
        self.notificationType = notificationType
        self.code = "contract.\(contract)" + (keyword.map { ".\($0)" } ?? "")
        self.field = instancePath
        self.schemaPath = schemaPath
        self.message = message
    }

    /// `order.confirmed /entityId: 42 is not of type string (/properties/entityId/type)`.
    public var description: String {
        var text = "\(contract)"
        if let field { text += " \(field.isEmpty ? "(root)" : field)" }
        text += ": \(message)"
        if let schemaPath { text += " (\(schemaPath.isEmpty ? "#" : schemaPath))" }
        return text
    }
}

/// The result of ``ContractChecker/check(_:)``.
public struct ContractReport: Sendable, Hashable, Codable, CustomStringConvertible {
    public var name: String?
    public var notificationCount: Int
    public var violations: [ContractViolation]

    public init(name: String?, notificationCount: Int, violations: [ContractViolation]) {
        self.name = name
        self.notificationCount = notificationCount
        self.violations = violations
    }

    public var isClean: Bool { violations.isEmpty }

    /// The violations of the record with sequence number `sequence`.
    public func violations(sequence: UInt64) -> [ContractViolation] { violations.filter { $0.notification.sequence == sequence } }

    /// `Contracts "template": 2 violations in 5 notifications`.
    public var summary: String {
        "Contracts\(name.map { " \"\($0)\"" } ?? ""): "
            + "\(DeepLinkReport.count(violations.count, "violation")) in \(DeepLinkReport.count(notificationCount, "notification"))"
    }

    public var text: String {
        var lines = [summary]
        var current: NotificationReference?
        for violation in violations {
            if violation.notification != current {
                current = violation.notification
                lines.append(violation.notification.description + (violation.notificationType.map { " [\($0)]" } ?? ""))
            }
            lines.append("  \(violation)")
        }
        return lines.joined(separator: "\n")
    }

    public var description: String { text }
}

extension CheckOutcome where Report == ContractReport {
    public init(_ report: ContractReport) {
        self.init(passed: report.isClean, summary: report.summary, report: report)
    }
}
