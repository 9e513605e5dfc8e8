import ArgumentParser
import Foundation
import PushMockCore
import PushMockJSON
import PushMockToolkit

/// `pushmock check contracts`: every push against the JSON Schema of its notification type.
struct CheckContracts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contracts",
        abstract: "Check payload contracts: a JSON Schema per notification type (docs/payload-contracts.md)."
    )

    @Option(help: ArgumentHelp("The contract file (JSON).", valueName: "file"))
    var contracts: String?

    @OptionGroup var source: CheckSourceOptions

    func run() async throws {
        try await runCheck {
            guard let path = contracts else { throw CheckError("--contracts FILE is required") }
            let file: ContractFile
            let definition: JSONValue
            do {
                file = try ContractFile(contentsOfFile: path)
                definition = try JSONValue(parsing: try Data(contentsOf: URL(fileURLWithPath: path)))
            } catch let error as ContractError {
                throw CheckError(error.description)
            } catch {
                throw CheckError("cannot read \(path): \(reason: error)")
            }
            let outcome: CheckOutcome<ContractReport>
            if let journal = source.journal {
                outcome = CheckOutcome(ContractChecker(contracts: file).check(try source.journalRecords(journal)))
            } else {
                let body: JSONValue = ["contracts": definition]
                outcome = try await source.askGateway("contracts", body: body.compactBytes, as: ContractReport.self)
            }
            try source.finish(
                outcome, text: outcome.report.text, junit: JUnitReport.testCases(outcome.report), suite: "pushmock.contracts")
        }
    }
}
