import ArgumentParser
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
        subcommands: [Serve.self, Send.self, Replay.self, ProviderToken.self, ClockCommand.self, DeviceCommand.self, TokenCommand.self, FaultCommand.self]
    )
}
