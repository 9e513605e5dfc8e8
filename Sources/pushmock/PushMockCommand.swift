import ArgumentParser
import Foundation
import PushMockCore
import PushMockGateway

/// `pushmock`: a local APNs/FCM/Expo gateway for testing push senders.
@main
struct PushMockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushmock",
        abstract: "A local APNs, FCM and Expo push gateway for testing push-notification senders.",
        discussion: """
            Start the gateway with `pushmock serve` and point your APNs, FCM or Expo client
            at the address and credentials it prints (trust the printed CA for TLS). See
            what it received in the web inbox, with `pushmock recordings`, through the
            control API (GET /_pushmock/recordings) or in the journal under Recordings/.
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

    /// The standard entry point, except:
    /// - the check commands report usage errors with exit status 2 instead of ArgumentParser's
    ///   64;
    /// - a `ValidationError` thrown by a command's `run()` (a bad `--config` file, an
    ///   unreadable `--tokens-file`) is printed with a pointer to that command's help, where
    ///   ArgumentParser would print the root command's usage, `Usage: pushmock <subcommand>`;
    /// - Foundation's file errors and Codable's decoding errors are printed as
    ///   ``ReadableError`` describes them (`cannot read /tmp: Is a directory`);
    /// - glibc's allocator cache is deepened first (``AllocatorTuning``).
    static func main() async {
        AllocatorTuning.apply()
        let arguments = Array(CommandLine.arguments.dropFirst())
        let isCheck = arguments.first.map(checkCommands.contains) ?? false
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            guard isCheck, exitCode(for: error) == .validationFailure else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(CheckExit.couldNotCheck.rawValue)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if ReadableError.needsRewriting(error) {
                // Foundation's file errors and Codable's would print as debugger dumps.
                FileHandle.standardError.write(Data("Error: \(readable: error)\n".utf8))
                Foundation.exit(isCheck ? CheckExit.couldNotCheck.rawValue : ExitCode.failure.rawValue)
            }
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            let help = (["pushmock"] + commandPath(arguments) + ["--help"]).joined(separator: " ")
            // An `ExitCode` carries no text: the command printed its own "Error: …" already.
            let text = message(for: error)
            FileHandle.standardError.write(Data("\(text.isEmpty ? "" : "Error: \(text)\n")See '\(help)'.\n".utf8))
            Foundation.exit(isCheck ? CheckExit.couldNotCheck.rawValue : ExitCode.validationFailure.rawValue)
        }
    }

    /// The subcommand names at the start of `arguments` (`["clock", "advance"]`).
    static func commandPath(_ arguments: [String]) -> [String] {
        var type: any ParsableCommand.Type = PushMockCommand.self
        var path: [String] = []
        for argument in arguments {
            guard
                let next = type.configuration.subcommands.first(where: {
                    $0._commandName == argument || ($0.configuration.aliases).contains(argument)
                })
            else { break }
            path.append(argument)
            type = next
        }
        return path
    }
}
