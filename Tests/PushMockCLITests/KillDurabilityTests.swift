import Foundation
import PushMockGateway
import PushMockRecording
import PushMockTestSupport
import Testing

/// `kill -9` under load ([hardening] #17): every request whose response reached the client is
/// in the journal after a restart, with the default durability and with fsync; the restarted
/// gateway continues the numbering in the same file.
@Suite("kill -9 durability", .serialized)
struct KillDurabilityTests {
    @Test("kill -9 under h2load: acknowledged responses <= journal records, numbering continues", arguments: ["written", "fsync"])
    func killUnderLoad(durability: String) async throws {
        guard let h2load = tool("h2load") else {
            Issue.record("h2load is missing (Debian package nghttp2-client)")
            return
        }
        let server = try await ServeProcess(arguments: ["--durability", durability, "--no-lint"])
        let directory = server.directory
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let token = try await run(ServeProcess.binary, ["provider-token", "--key", directory + "/certs/apns-sample-key.p8"])
        let jwt = token.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let topic = server.info.apnsSampleKey?.topic ?? "dev.pushmock.sample"

        // Load: h2c, 4 connections x 20 streams, far more requests than it can send before
        // the kill.
        let load = try ChildProcess.spawn(
            h2load,
            [
                "-n", "5000000", "-c", "4", "-m", "20", "-t", "1",
                "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: \(topic)", "-H", "apns-push-type: alert",
                "-d", try Self.payloadFile(in: directory),
                "http://127.0.0.1:\(server.cleartextPort)/3/device/\(String(repeating: "ab", count: 32))",
            ],
            output: .captureMerged
        )
        // Read on a Dispatch thread: a task (even a detached one) would hold one of the few
        // cooperative threads every test of the run shares for as long as h2load runs.
        async let collected = offloaded { load.readOutput().output }

        // Kill once a good number of requests were answered (or after 20 s, whatever came).
        let deadline = ContinuousClock.now + .seconds(20)
        // Cancelled instead (the only way out of this loop early), h2load must still end: the
        // `async let` above is awaited on the way out, and it reads until h2load exits.
        while ContinuousClock.now < deadline, Self.size(of: server.journalPath) < 2_000_000 {
            do {
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                load.terminate(SIGKILL)
                throw error
            }
        }
        _ = await server.stop(signal: SIGKILL)
        let output = String(decoding: try await collected, as: UTF8.self)
        _ = try await offloaded { load.wait() }
        let acknowledged = try #require(Self.succeeded(in: output), "h2load output: \(output)")
        #expect(acknowledged > 0, "h2load output: \(output)")

        // Restart on the same journal.
        let restarted = try await ServeProcess(arguments: ["--durability", durability], directory: directory)
        let (records, problems) = try JournalReader.readAll(path: restarted.journalPath)
        #expect(problems.isEmpty, "after the start-up repair the journal reads cleanly: \(problems.prefix(3))")
        let sequences = records.map(\.sequence)
        #expect(sequences == Array(1...UInt64(records.count)), "no gaps, no duplicates")
        #expect(
            records.count >= acknowledged,
            "every acknowledged response is journalled (\(records.count) records, \(acknowledged) acknowledged)")
        // Lines beyond the acknowledged ones were in flight: at most connections x streams.
        #expect(records.count - acknowledged <= 4 * 20, "\(records.count) records, \(acknowledged) acknowledged")
        #expect(restarted.info.journalRecovery?.lastSequenceAtStart == UInt64(records.count))
        print("kill -9 (\(durability)): \(acknowledged) acknowledged, \(records.count) journalled, 0 lost")

        // The next record continues the numbering in the same file.
        let one = try await run(
            h2load,
            [
                "-n", "1", "-c", "1", "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: \(topic)",
                "-d", try Self.payloadFile(in: directory),
                "http://127.0.0.1:\(restarted.cleartextPort)/3/device/\(String(repeating: "ab", count: 32))",
            ]
        )
        #expect(Self.succeeded(in: one.output) == 1, "\(one.output)")
        _ = await restarted.stop()
        let after = try JournalReader.readAll(path: restarted.journalPath)
        #expect(after.records.last?.sequence == UInt64(records.count + 1))
        #expect(after.records.count == records.count + 1)
    }

    static func payloadFile(in directory: String) throws -> String {
        let path = directory + "/payload.json"
        try Data(#"{"aps":{"alert":{"title":"Durable","body":"kill -9 test"}}}"#.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    /// The "N succeeded" of h2load's summary line `requests: … total, … started, … done, N succeeded, …`.
    static func succeeded(in output: String) -> Int? {
        for line in output.split(separator: "\n") where line.hasPrefix("requests:") {
            let parts = line.split(separator: ",")
            for part in parts where part.hasSuffix(" succeeded") {
                return Int(part.split(separator: " ").first ?? "")
            }
        }
        return nil
    }
}
