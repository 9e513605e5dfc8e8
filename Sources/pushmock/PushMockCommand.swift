import ArgumentParser
import Foundation
import PushMockGateway

/// `pushmock`: a local APNs/FCM gateway for testing push senders.
@main
struct PushMockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushmock",
        abstract: "A local APNs (and FCM) gateway for testing push-notification senders.",
        discussion: """
            Start the gateway with `pushmock serve`, point your APNs client at the printed address
            with the printed CA, and inspect what it received with the control API
            (GET /_pushmock/recordings) or the journal under Recordings/.
            """,
        version: PushMockVersion.current,
        subcommands: [
            Serve.self, Send.self, ProviderToken.self,
            RecordingsCommand.self, ExpectCommand.self, CheckCommand.self, GoldenCommand.self, Replay.self,
            ClockCommand.self, DeviceCommand.self, TokenCommand.self, FaultCommand.self, UserCommand.self,
            ReportCommand.self,
        ]
    )

    /// The commands CI uses as checks. Their contract is 0 passed, 1 failed, 2 the check could
    /// not run — bad flags included — so a CI script needs to test for three values only.
    static let checkCommands: Set<String> = ["expect", "check", "golden", "replay", "report"]

    /// The standard entry point, except that the check commands report usage errors with exit
    /// status 2 instead of ArgumentParser's 64, and that glibc's allocator cache is deepened
    /// first (``AllocatorTuning``).
    static func main() async {
        AllocatorTuning.apply()
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let first = arguments.first, checkCommands.contains(first) else {
            await main(arguments)
            return
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(CheckExit.couldNotCheck.rawValue)
        }
    }
}
