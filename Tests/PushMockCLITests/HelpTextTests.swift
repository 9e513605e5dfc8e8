import ArgumentParser
import Testing

@testable import pushmock

/// `--help` is the first documentation a user reads. ArgumentParser wraps each line of a
/// discussion on its own when it does not fit the terminal, so a hand-wrapped paragraph wider
/// than the terminal comes out ragged and a long example breaks in the middle of a flag.
/// These tests keep every line within 79 characters, so it prints as written on any terminal
/// of 80 columns or more (and when output is piped, where ArgumentParser assumes 80).
@Suite("help texts")
struct HelpTextTests {
    /// The terminal width to print for, and the widest line that prints unwrapped there
    /// (ArgumentParser breaks a line that fills every column).
    static let columns = 80
    static let widest = columns - 1

    /// Every command under `pushmock`, with the names that reach it.
    static let commands: [(path: String, type: any ParsableCommand.Type)] = {
        var found: [(String, any ParsableCommand.Type)] = []
        func visit(_ type: any ParsableCommand.Type, path: String) {
            found.append((path, type))
            for sub in type.configuration.subcommands {
                let name = sub.configuration.commandName ?? sub._commandName
                visit(sub, path: path + " " + name)
            }
        }
        visit(PushMockCommand.self, path: "pushmock")
        return found
    }()

    @Test("every command is reached", arguments: ["serve", "send apns", "send expo", "fault", "user", "check schedule", "golden"])
    func commandIsVisited(_ name: String) {
        #expect(Self.commands.contains { $0.path == "pushmock " + name }, "\(Self.commands.map(\.path))")
    }

    @Test("discussions fit 80-column terminals and print unwrapped", arguments: commands.map(\.path))
    func discussionFits(_ path: String) throws {
        let type = try #require(Self.commands.first { $0.path == path }?.type)
        let discussion = type.configuration.discussion
        for line in discussion.split(separator: "\n", omittingEmptySubsequences: false) {
            #expect(line.count <= Self.widest, "\(path): \(line.count) characters: \(line)")
        }
        let help = PushMockCommand.helpMessage(for: type, columns: Self.columns)
        let printed = Set(help.split(separator: "\n").map { $0.trimmingSuffix() })
        for line in discussion.split(separator: "\n") where !line.allSatisfy(\.isWhitespace) {
            #expect(printed.contains(line.trimmingSuffix()), "\(path): printed re-wrapped: \(line)")
        }
    }

    @Test(
        "a run-time usage error names the command whose help to read",
        arguments: [
            (["clock", "advance", "10m"], ["clock", "advance"]), (["send", "expo", "--tokens-file", "x"], ["send", "expo"]),
            (["serve", "--config", "serve"], ["serve"]), (["--help"], []), (["nonsense", "serve"], []),
        ])
    func commandPath(arguments: [String], path: [String]) {
        #expect(PushMockCommand.commandPath(arguments) == path)
    }

    @Test("the overview names every service the gateway plays")
    func overviewNamesServices() {
        let overview = PushMockCommand.configuration.abstract + " " + PushMockCommand.configuration.discussion
        for service in ["APNs", "FCM", "Expo"] {
            #expect(overview.contains(service), "\(service)")
        }
    }
}

extension Substring {
    fileprivate func trimmingSuffix() -> Substring {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == " " { end = index(before: end) }
        return self[startIndex..<end]
    }
}
