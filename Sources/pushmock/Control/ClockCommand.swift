import ArgumentParser
import PushMockControl
import PushMockCore

/// `pushmock clock`: read and move the running gateway's clock.
struct ClockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock",
        abstract: "Show, freeze, set or advance the gateway's clock.",
        discussion: """
            Everything time-based in the gateway reads this clock: provider-token and
            access-token age, token lifecycles, apns-expiration and TTL, fault windows and
            rates. It runs with real time until you change it.

            Examples:
              pushmock clock                     # show
              pushmock clock freeze              # stop time
              pushmock clock set 2026-11-21T10:00:00Z
              pushmock clock advance 10m         # jump ahead (frozen or running)
              pushmock clock resume              # let it run again from where it is
              pushmock clock reset               # back to real time
            """,
        subcommands: [Show.self, Freeze.self, Resume.self, Set.self, Advance.self, Reset.self],
        defaultSubcommand: Show.self
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the gateway's time.")
        @OptionGroup var control: ControlOptions

        func run() async throws {
            try await runControl(control) { client in
                try report(try await client.call("GET", "clock"), control)
            }
        }
    }

    struct Freeze: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the clock (optionally at a given time).")
        @OptionGroup var control: ControlOptions
        @Option(help: "Freeze at this time instead of now (ISO 8601, 10:02, +5m).")
        var at: String?

        func run() async throws {
            try await runControl(control) { client in
                var body: [UInt8] = []
                if let at {
                    let time = try await TimeArgument(text: at).resolve(using: client)
                    body = jsonBody(["at": time.millisecondsSince1970])
                }
                try report(try await client.call("POST", "clock/freeze", json: body), control)
            }
        }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let a frozen clock run again from where it stands.")
        @OptionGroup var control: ControlOptions

        func run() async throws {
            try await runControl(control) { client in
                try report(try await client.call("POST", "clock/resume"), control)
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set the time (a frozen clock stays frozen).")
        @OptionGroup var control: ControlOptions
        @Argument(help: "The new time: 2026-11-21T10:00:00Z, 10:02 (today, local time zone), +5m.")
        var time: String

        func run() async throws {
            try await runControl(control) { client in
                let resolved = try await TimeArgument(text: time).resolve(using: client)
                try report(try await client.call("POST", "clock/set", json: jsonBody(["to": resolved.millisecondsSince1970])), control)
            }
        }
    }

    struct Advance: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move the clock forward (or back with a negative duration).")
        @OptionGroup var control: ControlOptions
        // Collected as unrecognised input: parsed as an ordinary argument, a negative duration
        // (`-5m`) read as a cluster of short options and was refused.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("How far: 90s, 10m, 1h30m, 2d, -5m.", valueName: "duration"))
        var durations: [String] = []

        var duration: String { durations.first ?? "" }

        func validate() throws {
            guard durations.count == 1 else {
                throw ValidationError(
                    durations.isEmpty ? "Missing expected argument '<duration>'" : "Give one duration, not \(durations.count)")
            }
            guard DurationText.parse(duration) != nil else { throw ValidationError("\(duration) is not a duration (90s, 10m, 1h30m)") }
        }

        func run() async throws {
            try await runControl(control) { client in
                try report(try await client.call("POST", "clock/advance", json: jsonBody(["by": duration])), control)
            }
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Return to real time, running.")
        @OptionGroup var control: ControlOptions

        func run() async throws {
            try await runControl(control) { client in
                try report(try await client.call("POST", "clock/reset"), control)
            }
        }
    }
}

private func report(_ response: ControlResponse, _ control: ControlOptions) throws {
    if control.json {
        control.printJSON(response)
        return
    }
    let reading = try response.decode(ClockReading.self)
    var line = reading.now + (reading.frozen ? "  (frozen)" : "  (running)")
    if reading.offsetMilliseconds != 0 {
        let offset = DurationText.format(.milliseconds(reading.offsetMilliseconds))
        line += "  \(reading.offsetMilliseconds > 0 ? "+" : "")\(offset) from real time"
    }
    print(line)
}
