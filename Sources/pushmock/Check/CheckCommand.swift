import ArgumentParser

/// `pushmock check`: the deep-link and policy checks over a journal file or a running gateway.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check recorded notifications: deep links against a route table, or a notification policy.",
        discussion: """
            Reads the exchanges from a journal file (--journal, no gateway needed) or asks
            a running gateway (--server, default $PUSHMOCK_URL or http://127.0.0.1:2198).
            The query flags limit the check to some exchanges, as they limit
            GET /_pushmock/recordings.

            Exit status: 0 clean, 1 problems or violations found, 2 unusable input (a
            missing or invalid route table, policy or journal, a bad query, an unreachable
            gateway).

            Examples:
              pushmock check links --routes Examples/LoopHealth/pushmock/routes.json \\
                  --journal Recordings/run.jsonl
              pushmock check policy --policy Examples/LoopHealth/pushmock/policy.json \\
                  --namespace ci-7 --junit policy.xml
              pushmock check contracts --contracts contracts.json \\
                  --journal Recordings/run.jsonl
            """,
        subcommands: [CheckLinks.self, CheckPolicy.self, CheckContracts.self, CheckSchedule.self]
    )
}
