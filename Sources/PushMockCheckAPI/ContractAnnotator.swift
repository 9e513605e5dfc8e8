import PushMockGateway
package import PushMockRecording
package import PushMockToolkit

/// Payload contracts checked at intake: every accepted push's record carries its contract
/// violations as findings (`contract.<name>.<keyword>`, severity `error`, the JSON pointer as
/// field, `contract:<name>` as source), beside its lint notes — so queries, the inbox and
/// `pushmock recordings` show them without running `check contracts`.
package struct ContractAnnotator: RecordAnnotator {
    package static let installedName = "contracts"

    package let checker: ContractChecker

    package init(contracts: ContractFile) {
        checker = ContractChecker(contracts: contracts)
    }

    package var name: String { Self.installedName }

    package func annotate(_ record: inout ExchangeRecord) {
        let violations = checker.check(CollectionOfOne(record)).violations
        guard !violations.isEmpty else { return }
        var notes = record.notification?.lint ?? []
        for violation in violations {
            notes.append(
                LintNote(
                    code: violation.code,
                    severity: "error",
                    // A message of an Expo request of several: `[2]/url`, as lint says `[2].priority`.
                    field: (violation.notification.messageIndex.map { "[\($0)]" } ?? "") + (violation.field ?? ""),
                    message: violation.message,
                    source: "contract:\(violation.contract)"
                ))
        }
        if record.notification == nil { record.notification = NotificationInfo() }
        record.notification?.lint = notes
    }
}
