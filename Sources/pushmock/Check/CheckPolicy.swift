import ArgumentParser
import Foundation
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockToolkit

/// `pushmock check policy`: quiet hours, frequency caps and priority rules over a recording.
struct CheckPolicy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Check a notification policy: quiet hours, frequency caps, priorities (docs/policy-checks.md).",
        discussion: """
            Times are the recorded exchange times (the gateway's clock, virtual or not);
            quiet hours are judged in each recipient's time zone as the policy file says.
            """
    )

    @Option(help: ArgumentHelp("The policy file (JSON).", valueName: "file"))
    var policy: String?

    @Option(
        help: ArgumentHelp(
            "Users and app events to judge against (the GET /_pushmock/users form, from `pushmock user export`); "
                + "with --journal it is the only source of users, against a gateway it replaces the gateway's.",
            valueName: "file"))
    var users: String?

    @OptionGroup var source: CheckSourceOptions

    func run() async throws {
        try await runCheck {
            guard let policyPath = policy else { throw CheckError("--policy FILE is required") }
            let policyFile: PolicyFile
            let definition: JSONValue
            do {
                policyFile = try PolicyFile(contentsOfFile: policyPath)
                // Sent to the gateway as read, so it judges exactly this file.
                definition = try JSONValue(parsing: try Data(contentsOf: URL(fileURLWithPath: policyPath)))
            } catch let error as PolicyError {
                throw CheckError(error.description)
            } catch {
                throw CheckError("cannot read \(policyPath): \(reason: error)")
            }
            var directory: UserDirectory?
            var usersDefinition: JSONValue?
            if let users {
                do {
                    let data = try Data(contentsOf: URL(fileURLWithPath: users))
                    let users = try JSONDecoder().decode(UserDirectory.self, from: data)
                    try UserDefinitionCheck.check(users)
                    directory = users
                    usersDefinition = try JSONValue(parsing: data)
                } catch {
                    throw CheckError("cannot read the users file \(users): \(reason: error)")
                }
            }
            let outcome: CheckOutcome<PolicyReport>
            if let journal = source.journal {
                let checker = PolicyChecker(policy: policyFile, users: directory ?? UserDirectory())
                outcome = CheckOutcome(checker.check(try source.journalRecords(journal)))
            } else {
                var body: JSONValue = ["policy": definition]
                if let usersDefinition, case .object(var object) = body {
                    object.members.append((key: "users", value: usersDefinition))
                    body = .object(object)
                }
                outcome = try await source.askGateway("policy", body: body.compactBytes, as: PolicyReport.self)
            }
            try source.finish(
                outcome, text: outcome.report.text, junit: JUnitReport.testCases(outcome.report, policy: policyFile),
                suite: "pushmock.policy")
        }
    }
}
