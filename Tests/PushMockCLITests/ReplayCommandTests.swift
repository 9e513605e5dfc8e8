import Foundation
import PushMockGateway
import Testing

/// `pushmock replay` and `pushmock serve --playback` as processes, over TLS.
@Suite("pushmock replay and serve --playback")
struct ReplayCommandTests {
    static let token = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"
    static let goneToken = "0a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a"

    func pushmock(_ arguments: [String], in directory: String) async throws -> (status: Int32, output: String, error: String) {
        try await run(ServeProcess.binary, arguments, directory: directory)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    func control(_ serve: ServeProcess, _ path: String, _ body: String) async throws {
        let curl = try #require(tool("curl"))
        let result = try await run(
            curl,
            [
                "-s", "-f", "-X", "POST", "-H", "content-type: application/json", "-d", body,
                "http://127.0.0.1:\(serve.cleartextPort)/_pushmock/\(path)",
            ])
        try #require(result.status == 0, "control API \(path): \(result.output)")
    }

    func unregister(_ token: String, on serve: ServeProcess) async throws {
        try await control(
            serve, "apns/tokens", #"{"token":"\#(token)","bundleId":"dev.pushmock.sample","state":"unregistered","at":1700000000000}"#)
    }

    /// The arguments that replay to `serve` with its own sample credentials.
    func replayArguments(_ journal: String, to serve: ServeProcess) -> [String] {
        [
            "replay", journal, "--to", "https://127.0.0.1:\(serve.tlsPort)", "--ca", serve.directory + "/certs/ca.pem",
            "--key", serve.directory + "/certs/apns-sample-key.p8", "--key-id", "PUSHMOCK01", "--team-id", "PUSHMOCK00",
            "--service-account", serve.directory + "/certs/fcm-sample-service-account.json",
            "--token-uri", "https://127.0.0.1:\(serve.tlsPort)/token",
        ]
    }

    static let expoToken = "ExponentPushToken[cliaaaaaaaaaaaaaaaaaaa]"

    /// A journal with two accepted APNs sends, a 410, an accepted FCM send and an Expo send.
    func recordJournal(in source: ServeProcess) async throws {
        try await unregister(Self.goneToken, on: source)
        let ready = source.directory + "/ready.json"
        for arguments in [
            [
                "send", "apns", "--ready-file", ready, "--token", Self.token, "--alert", "Hi", "--priority", "5", "--collapse-id", "c1",
                "--quiet",
            ],
            ["send", "apns", "--ready-file", ready, "--token", Self.goneToken, "--alert", "Hi", "--quiet", "--fail-on", "never"],
            ["send", "apns", "--ready-file", ready, "--token", Self.token, "--alert", "Again", "--quiet"],
            ["send", "fcm", "--ready-file", ready, "--topic", "news", "--title", "Hi", "--quiet"],
            ["send", "expo", "--server", "http://127.0.0.1:\(source.cleartextPort)", "--token", Self.expoToken, "--title", "Hi"],
        ] {
            let result = try await pushmock(arguments, in: source.directory)
            #expect(result.status == 0, "\(arguments): \(result.error)")
        }
    }

    /// A gateway whose journal holds ``recordJournal(in:)``'s sends, and a second one to replay
    /// them to, where the token that answered 410 is unregistered too (so every outcome can match).
    func sourceAndTarget() async throws -> (source: ServeProcess, target: ServeProcess) {
        let source = try await ServeProcess()
        do {
            try await recordJournal(in: source)
            let target = try await ServeProcess()
            do {
                try await unregister(Self.goneToken, on: target)
                return (source, target)
            } catch {
                target.kill()
                target.removeDirectory()
                throw error
            }
        } catch {
            source.kill()
            source.removeDirectory()
            throw error
        }
    }

    @Test("replay to a second serve with its own credentials: same → 0, a difference → 1, usage → 2; JSON and JUnit")
    func replay() async throws {
        let (source, target) = try await sourceAndTarget()
        defer { for serve in [source, target] { serve.kill(); serve.removeDirectory() } }

        let junit = target.directory + "/replay.xml"
        let same = try await pushmock(replayArguments(source.journalPath, to: target) + ["--json", "--junit", junit], in: target.directory)
        #expect(same.status == 0, "\(same.output) \(same.error)")
        let report = try json(same.output)
        let summary = try #require(report["summary"] as? [String: Any])
        #expect(summary["total"] as? Int == 5)
        #expect(summary["same"] as? Int == 5)
        #expect(summary["allMatch"] as? Bool == true)
        let exchanges = try #require(report["exchanges"] as? [[String: Any]])
        #expect(exchanges.map { $0["platform"] as? String } == ["apns", "apns", "apns", "fcm", "expo"])
        #expect((exchanges[1]["recorded"] as? [String: Any])?["reason"] as? String == "Unregistered")
        #expect(try String(contentsOfFile: junit, encoding: .utf8).contains(#"tests="5" failures="0""#))

        // The replayed requests carry the recorded headers, signed with the target's key.
        let replayed = try String(contentsOfFile: target.journalPath, encoding: .utf8)
            .split(separator: "\n").map { try json(String($0)) }
            .filter { $0["platform"] as? String == "apns" }
        #expect(replayed.count == 3)
        let first = try #require(replayed.first?["notification"] as? [String: Any])
        #expect(first["priority"] as? Int == 5)
        #expect(first["collapseID"] as? String == "c1")

        // The token is gone on the target now: one difference, exit 1, readable report.
        try await unregister(Self.token, on: target)
        let different = try await pushmock(replayArguments(source.journalPath, to: target) + ["--platform", "apns"], in: target.directory)
        #expect(different.status == 1, "\(different.output) \(different.error)")
        #expect(different.output.contains("DIFFERENT"))
        #expect(different.output.contains("recorded accepted 200, replayed invalid-token 410 Unregistered"))
        #expect(different.output.hasSuffix("3 replayed: 1 same, 2 different\n"))

        // Expo: the token uninstalled on the target, replayed to its cleartext listener.
        try await control(target, "expo/tokens", #"[{"token":"\#(Self.expoToken)","project":"@acme/app","state":"unregistered"}]"#)
        let expo = try await pushmock(
            [
                "replay", source.journalPath, "--to", "https://127.0.0.1:\(target.tlsPort)", "--expo-to",
                "http://127.0.0.1:\(target.cleartextPort)",
                "--platform", "expo",
            ],
            in: target.directory)
        #expect(expo.status == 1, "\(expo.output) \(expo.error)")
        #expect(expo.output.contains("recorded accepted 200, replayed invalid-token 200 DeviceNotRegistered"), "\(expo.output)")

        // Usage and I/O problems: exit 2.
        let noKey = try await pushmock(
            ["replay", source.journalPath, "--to", "https://127.0.0.1:\(target.tlsPort)", "--platform", "apns"], in: target.directory)
        #expect(noKey.status == 2)
        #expect(noKey.error.contains("--key"))
        let noJournal = try await pushmock(replayArguments(target.directory + "/missing.jsonl", to: target), in: target.directory)
        #expect(noJournal.status == 2)
        let badFilter = try await pushmock(replayArguments(source.journalPath, to: target) + ["--status", "abc"], in: target.directory)
        #expect(badFilter.status == 2)
    }

    @Test("replay --ready-file: a local gateway on free ports, its CA, sample key, service account and Expo URL; neither it nor --to → 2")
    func replayToReadyFile() async throws {
        let (source, target) = try await sourceAndTarget()
        defer { for serve in [source, target] { serve.kill(); serve.removeDirectory() } }

        let same = try await pushmock(
            ["replay", source.journalPath, "--ready-file", target.directory + "/ready.json", "--json"], in: target.directory)
        #expect(same.status == 0, "\(same.output) \(same.error)")
        let summary = try #require(try json(same.output)["summary"] as? [String: Any])
        #expect(summary["total"] as? Int == 5)
        #expect(summary["same"] as? Int == 5)
        // All five reached the target: APNs and FCM over TLS, Expo at its cleartext base URL.
        let replayed = try String(contentsOfFile: target.journalPath, encoding: .utf8).split(separator: "\n").map { try json(String($0)) }
        let sends = replayed.filter { ["apns", "fcm", "expo"].contains($0["platform"] as? String) }
        #expect(sends.map { $0["platform"] as? String } == ["apns", "apns", "apns", "fcm", "expo"])
        #expect((sends.last?["connection"] as? [String: Any])?["tls"] as? Bool == false)

        let nowhere = try await pushmock(["replay", source.journalPath], in: target.directory)
        #expect(nowhere.status == 2)
        #expect(nowhere.error.contains("give --to (the gateway to replay to) or --ready-file"), "\(nowhere.error)")
    }

    /// A damaged line was dropped without a word, and the request it recorded was simulated
    /// as if the journal had never held it.
    @Test("serve --playback says at start which journal lines it cannot play back")
    func playbackDamagedLines() async throws {
        let source = try await ServeProcess()
        defer { source.kill(); source.removeDirectory() }
        try await recordJournal(in: source)
        var lines = try String(contentsOfFile: source.journalPath, encoding: .utf8).split(separator: "\n").map(String.init)
        lines.insert(#"{"v":1,"seq":"three","time":"2026-11-21T10:00:00.000Z"}"#, at: 1)
        let damaged = source.directory + "/damaged.jsonl"
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: damaged))
        let player = try await ServeProcess(arguments: ["--playback", damaged])
        defer { player.removeDirectory() }
        let (_, log) = await player.stop()
        #expect(log.contains("playback: 1 line(s) of the journal could not be read and are not played back; first: line 2"), "\(log)")
    }

    @Test("serve --playback answers with the recorded responses, replay confirms, the journal says so; curl --http2")
    func playback() async throws {
        let source = try await ServeProcess()
        defer { source.kill(); source.removeDirectory() }
        try await recordJournal(in: source)
        let player = try await ServeProcess(arguments: ["--playback", source.journalPath])
        defer { player.kill(); player.removeDirectory() }

        // Nothing registered on the player, yet the 410 comes back: it was recorded.
        let result = try await pushmock(replayArguments(source.journalPath, to: player) + ["--json"], in: player.directory)
        #expect(result.status == 0, "\(result.output) \(result.error)")
        #expect(try (json(result.output)["summary"] as? [String: Any])?["same"] as? Int == 5)

        let lines = try String(contentsOfFile: player.journalPath, encoding: .utf8)
            .split(separator: "\n").map { try json(String($0)) }
            .filter { ["apns", "fcm", "expo"].contains($0["platform"] as? String) }
        #expect(lines.count == 5)
        #expect(lines.allSatisfy { (($0["annotations"] as? [String: Any])?["playback"] as? String)?.hasPrefix("seq ") == true })

        // curl over HTTP/2 with the player's own sample key.
        if let curl = tool("curl") {
            let providerToken = try await pushmock(
                [
                    "provider-token", "--key", player.directory + "/certs/apns-sample-key.p8", "--key-id", "PUSHMOCK01", "--team-id",
                    "PUSHMOCK00",
                ],
                in: player.directory
            ).output.trimmingCharacters(in: .whitespacesAndNewlines)
            let response = try await run(
                curl,
                [
                    "-s", "--http2", "--cacert", player.directory + "/certs/ca.pem",
                    "-H", "authorization: bearer \(providerToken)", "-H", "apns-topic: dev.pushmock.sample", "-H", "apns-push-type: alert",
                    "-d", #"{"aps":{"alert":"Hi"}}"#, "-w", "\n%{http_code}",
                    "https://127.0.0.1:\(player.tlsPort)/3/device/\(Self.goneToken)",
                ])
            #expect(response.output.hasSuffix("\n410"), "\(response.output) \(response.error)")
            #expect(response.output.contains(#""reason":"Unregistered""#))
        }
    }
}
