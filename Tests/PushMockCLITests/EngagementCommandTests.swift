import Foundation
import PushMockCore
import PushMockJSON
import Testing

/// [engagement] from the command line: `pushmock serve` as a process with a frozen clock, curl to
/// send, `pushmock device open|act|permission|behaviour|engagements` to script what users do.
@Suite("Engagement from the command line (process)", .serialized)
struct EngagementCommandTests {
    typealias Session = SimulationCommandTests.Session
    static let token = SimulationCommandTests.token
    static let ids = (1...3).map { "5D2E8F10-0000-4000-8000-00000000000\($0)" }
    static let dose = #"{"aps":{"alert":{"title":"Dose due"},"category":"DOSE"}}"#

    @Test("a tester opens one, acts on another, revokes permission; the engagements list links them to the recordings")
    func commands() async throws {
        let session = try await Session()
        defer { session.server.removeDirectory() }
        for id in Self.ids.prefix(2) {
            #expect(try await session.send(headers: ["apns-id: \(id)"], payload: Self.dose).status == 200)
        }
        try await session.pushmock(["clock", "advance", "30s"])
        let opened = try await session.pushmock(["device", "open", Self.token, Self.ids[0]])
        #expect(opened.output.contains("opened at 2026-11-21T09:58:30.000Z"), "\(opened.output)")
        let acted = try await session.json(["device", "act", Self.token, Self.ids[1], "TAKEN"])
        #expect(acted["notification"]?["action"]?.stringValue == "TAKEN")

        let again = try await run(
            ServeProcess.binary,
            ["device", "dismiss", Self.token, Self.ids[0], "--server", "http://127.0.0.1:\(session.server.cleartextPort)"])
        #expect(again.status != 0)
        #expect(again.error.contains("already opened"), "\(again.error)")

        try await session.pushmock(["device", "permission", Self.token, "revoked"])
        #expect(try await session.send(headers: ["apns-id: \(Self.ids[2])"], payload: Self.dose).status == 200, "still accepted")
        let device = try await session.json(["device", "show", Self.token])
        #expect(device["permission"]?.stringValue == "denied")
        #expect(device["showing"]?.arrayValue?.isEmpty == true, "nothing on screen: two engaged, one not displayed")

        let shown = try await session.pushmock(["device", "show", Self.token])
        #expect(shown.output.contains("action       \(Self.ids[1].lowercased()) TAKEN") || shown.output.contains("TAKEN"))
        let events = try await session.json(["device", "engagements"])
        let list = events["events"]?.arrayValue ?? []
        #expect(list.compactMap { $0["event"]?.stringValue } == ["opened", "action"])
        #expect(list.compactMap { $0["sequence"]?.intValue } == [1, 2])
        let text = try await session.pushmock(["device", "engagements", "--sequence", "2"])
        #expect(text.output.contains("action") && text.output.contains("#2 TAKEN"), "\(text.output)")
        #expect(await session.server.stop().status == 0)
    }

    @Test("a behaviour model from a file opens every DOSE notification 20 seconds after delivery")
    func behaviourModel() async throws {
        let session = try await Session()
        defer { session.server.removeDirectory() }
        let file = session.server.directory + "/model.json"
        try Data(#"{"seed":7,"rules":[{"category":"DOSE","open":1,"delay":20}]}"#.utf8).write(to: URL(fileURLWithPath: file))
        try await session.pushmock(["device", "behaviour", "--file", file])
        let shown = try await session.json(["device", "behaviour"])
        #expect(shown["seed"]?.intValue == 7)
        #expect(try await session.send(headers: ["apns-id: \(Self.ids[0])"], payload: Self.dose).status == 200)
        try await session.pushmock(["clock", "advance", "19s"])
        #expect(try await session.json(["device", "engagements"])["events"]?.arrayValue?.isEmpty == true)
        try await session.pushmock(["clock", "advance", "1s"])
        let events = try await session.json(["device", "engagements"])["events"]?.arrayValue ?? []
        #expect(events.count == 1)
        // `serve --clock-start … --freeze-clock` stands exactly at the start.
        #expect(events.first?["at"]?.stringValue == "2026-11-21T09:58:20.000Z")
        #expect(events.first?["reason"]?.stringValue == "behaviour model (seed 7)")
        try await session.pushmock(["device", "behaviour", "--clear"])
        #expect(await session.server.stop().status == 0)
    }
}

extension EngagementCommandTests {
    @Test("pushmock report: text and exit 0 when targets hold, JUnit and exit 1 when one is missed")
    func report() async throws {
        let session = try await Session()
        defer { session.server.removeDirectory() }
        #expect(try await session.send(headers: ["apns-id: \(Self.ids[0])"], payload: Self.dose).status == 200)
        try await session.pushmock(["device", "open", Self.token, Self.ids[0]])
        let passed = try await session.pushmock(["report", "--target", "critical=high:5s"])
        #expect(passed.output.contains("PASS  critical (high priority) delivered within 5 s"), "\(passed.output)")
        #expect(passed.output.contains("category DOSE"))
        let server = ["--server", "http://127.0.0.1:\(session.server.cleartextPort)"]
        let missed = try await run(ServeProcess.binary, ["report", "--target", "low:1s", "--format", "junit"] + server)
        #expect(missed.status == 1)
        #expect(missed.output.contains("<failure"))
        let bad = try await run(ServeProcess.binary, ["report", "--target", "urgent"] + server)
        #expect(bad.status == 2)
        #expect(await session.server.stop().status == 0)
    }
}

extension EngagementCommandTests {
    @Test("the behaviour model from the --config file's \"engagement\" section; a bad one stops serve")
    func configFile() async throws {
        let directory = NSTemporaryDirectory() + "pushmock-engagement-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let config = directory + "/pushmock.json"
        try Data(#"{"engagement":{"seed":9,"rules":[{"kind":"alert","dismiss":1,"delay":{"min":1,"max":2}}]}}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        let server = try await ServeProcess(arguments: ["--config", config], directory: directory)
        defer { server.removeDirectory() }
        let model = try await run(ServeProcess.binary, ["device", "behaviour", "--server", "http://127.0.0.1:\(server.cleartextPort)"])
        #expect(model.status == 0)
        #expect(model.output.contains("\"seed\" : 9"), "\(model.output)")
        #expect(await server.stop().status == 0)

        try Data(#"{"engagement":{"seed":9,"rules":[{"open":2}]}}"#.utf8).write(to: URL(fileURLWithPath: config))
        let refused = try await run(
            ServeProcess.binary, ["serve", "--config", config, "--port", "0", "--tls-port", "0", "--certs-dir", directory + "/certs"])
        #expect(refused.status != 0)
        #expect((refused.output + refused.error).contains("between 0 and 1"))
    }
}
