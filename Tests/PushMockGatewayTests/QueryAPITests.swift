import Foundation
import PushMockControl
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockTesting
import PushMockToolkit
import PushMockTransport
import Testing

private let token = PushMockHarness.sampleDeviceToken

private func alert(_ title: String) -> String {
    #"{"aps":{"alert":{"title":"\#(title)","body":"Take it now"}},"deep_link":"loop://protocols/p1/log"}"#
}

@Suite("Queries and expectations over the REST API")
struct QueryAPITests {
    @Test("the query language in GET /recordings: payload predicates, status classes, order, paging")
    func listing() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            for title in ["Time for your BPC-157", "Time for your TB-500", "Weekly check-in"] {
                expectAccepted(try await connection.send(try mock.apnsRequest(payload: alert(title))))
            }
            _ = try await connection.send(try mock.apnsRequest(payload: ""))
            await connection.close()
            let control = try mock.controlClient()
            func titles(_ items: [(String, String)]) async throws -> [String] {
                let body = try JSONValue(parsing: try await control.call("GET", "recordings", query: items).body)
                return body["records"]?.arrayValue?.map { $0["request"]?["body"]?["aps"]?["alert"]?["title"]?.stringValue ?? "-" } ?? []
            }
            #expect(try await titles([("where", "$.aps.alert.title~Time for *")]) == ["Time for your TB-500", "Time for your BPC-157"])
            #expect(
                try await titles([("where", "$.aps.alert.title~Time for *"), ("order", "oldest")]) == [
                    "Time for your BPC-157", "Time for your TB-500",
                ])
            #expect(try await titles([("status", "4xx")]) == ["-"])
            #expect(try await titles([("text", "tb-500")]) == ["Time for your TB-500"], "free text, any case")
            #expect(try await titles([("text", "time for"), ("where", "$.aps.alert.title~*BPC*")]) == ["Time for your BPC-157"])
            #expect(
                try await titles([("where", "$.deep_link=loop://protocols/p1/log"), ("where", "$.aps.alert.title=Weekly check-in")]) == [
                    "Weekly check-in"
                ])
            let page = try JSONValue(parsing: try await control.call("GET", "recordings", query: [("limit", "2")]).body)
            #expect(page["count"]?.intValue == 2)
            let next = try #require(page["next"]?.uint64Value)
            let rest = try JSONValue(
                parsing: try await control.call("GET", "recordings", query: [("limit", "2"), ("after", String(next))]).body)
            #expect(rest["count"]?.intValue == 2)
            let bad = try await control.request("GET", "recordings", query: [("where", "$.[")])
            #expect(bad.status == 400)
            #expect(try await control.request("GET", "recordings", query: [("colour", "red")]).status == 400)
            // Taken and ignored before: a second value of a paging item, `count` with nothing
            // waiting, an item the report does not take.
            for (path, items, message) in [
                ("recordings", [("limit", "1"), ("limit", "2")], "limit is given twice"),
                ("recordings", [("count", "5")], "count is how many matches wait= waits for; give wait too"),
                ("report", [("bogus", "1")], "unknown query item bogus; GET /_pushmock/report takes format and target"),
            ] {
                let refused = try await control.request("GET", path, query: items)
                #expect(refused.status == 400, "\(items)")
                #expect(refused.errorMessage == message, "\(refused.text)")
            }
            await control.close()
        }
    }

    @Test("long poll: GET /recordings?wait= returns once the asynchronous send arrives")
    func longPoll() async throws {
        try await withPushMock { mock in
            let control = try mock.controlClient()
            let late = Task {
                try await Task.sleep(for: .milliseconds(150))
                expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest(payload: alert("late"))))
            }
            let started = ContinuousClock.now
            let body = try JSONValue(
                parsing: try await control.call("GET", "recordings", query: [("where", "$.aps.alert.title=late"), ("wait", "300s")]).body)
            #expect(body["count"]?.intValue == 1)
            // Woken by the append, not by the timeout: the longest wait the API allows, and a
            // bound far from both ends (a loaded 2-core CI machine took 67 s to deliver the send
            // on a new TLS connection in a debug build; the timeout would answer at 300 s).
            #expect(ContinuousClock.now - started < .seconds(240))
            try await late.value
            await control.close()
        }
    }

    /// The wait counted matches in the whole store, so a page after the newest record came
    /// back empty at once instead of waiting for the next one.
    @Test("long poll from a cursor, oldest first: waits for a match after the cursor (tailing)")
    func longPollAfterCursor() async throws {
        try await withPushMock { mock in
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest(payload: alert("first"))))
            let first = try #require(mock.recordings.records(limit: 1).first?.sequence)
            let control = try mock.controlClient()
            let poll = Task {
                try await control.call(
                    "GET", "recordings",
                    query: [("platform", "apns"), ("order", "oldest"), ("after", String(first)), ("wait", "300s"), ("count", "1")])
            }
            try await Task.sleep(for: .milliseconds(200))
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest(payload: alert("second"))))
            let body = try JSONValue(parsing: try await poll.value.body)
            #expect(body["count"]?.intValue == 1)
            #expect(body["records"]?[0]?["request"]?["body"]?["aps"]?["alert"]?["title"]?.stringValue == "second")
            await control.close()
        }
    }

    @Test("POST /expectations: 200 when met, 417 with nearest misses when not; JUnit on request")
    func expectations() async throws {
        try await withPushMock { mock in
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest(payload: alert("Time for your {{ compound_name }}"))))
            let control = try mock.controlClient()
            let wanted =
                #"{"name":"dose reminder","query":{"token":"\#(token)","payload":[{"path":"$.aps.alert.title","op":"=","value":"Time for your BPC-157"}]},"count":1}"#
            let failed = try await control.request("POST", "expectations", json: Array(wanted.utf8))
            #expect(failed.status == 417)
            let report = try JSONValue(parsing: failed.body)
            #expect(report["passed"]?.boolValue == false)
            let miss = report["results"]?[0]?["nearestMisses"]?[0]
            #expect(miss?["mismatches"]?[0]?["actual"]?.stringValue == "Time for your {{ compound_name }}")
            #expect(report["results"]?[0]?["message"]?.stringValue?.contains("nearest misses") == true)

            let junit = try await control.request("POST", "expectations", query: [("format", "junit")], json: Array(wanted.utf8))
            #expect(junit.status == 417)
            #expect(junit.text.contains(#"<testcase name="dose reminder""#))

            let met = #"[{"query":{"token":"\#(token)"},"count":1},{"query":{"token":"ffff*"},"count":0}]"#
            let passed = try await control.request("POST", "expectations", json: Array(met.utf8))
            #expect(passed.status == 200, "\(passed.text)")

            let order = #"{"order":[{"steps":[{"platform":"apns"},{"platform":"apns"}]}]}"#
            #expect(try await control.request("POST", "expectations", json: Array(order.utf8)).status == 417, "only one APNs send")
            #expect(try await control.request("GET", "expectations").status == 405)
            #expect(try await control.request("POST", "expectations", json: Array("{}".utf8)).status == 400)
            await control.close()
        }
    }

    @Test("an expectation with within waits for an asynchronous sender")
    func within() async throws {
        try await withPushMock { mock in
            let control = try mock.controlClient()
            let late = Task {
                try await Task.sleep(for: .milliseconds(150))
                expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            }
            let body = #"{"query":{"token":"\#(token)"},"count":1,"within":"60s"}"#
            #expect(try await control.request("POST", "expectations", json: Array(body.utf8)).status == 200)
            try await late.value
            await control.close()
        }
    }

    @Test("namespaces: by header or by app; queries and reset see only their own")
    func namespaces() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            expectAccepted(try await connection.send(try mock.apnsRequest(headers: [("x-pushmock-namespace", "run-a")])))
            expectAccepted(try await connection.send(try mock.apnsRequest(headers: [("x-pushmock-namespace", "run-b")])))
            expectAccepted(try await connection.send(try mock.apnsRequest()))
            await connection.close()
            #expect(mock.records(RecordingQuery(namespace: "run-a")).count == 1)
            #expect(mock.records(RecordingQuery(namespace: mock.topic)).count == 1, "no header: the app is the namespace")
            let control = try mock.controlClient()
            let cleared = try JSONValue(parsing: try await control.call("DELETE", "recordings", query: [("namespace", "run-a")]).body)
            #expect(cleared["cleared"]?.intValue == 1)
            #expect(mock.recordings.count == 2)
            await control.close()
        }
    }
}

@Suite("Expectations in Swift")
struct SwiftExpectationTests {
    @Test("expect passes, and fails with a report showing the nearest miss")
    func expect() async throws {
        try await withPushMock { mock in
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest(payload: alert("Time for your {{ compound_name }}"))))
            let matched = try await mock.expect(RecordingQuery(token: Glob(token)))
            #expect(matched.count == 1)
            let wanted = RecordingQuery(token: Glob(token), payload: [try .equals("$.aps.alert.title", "Time for your BPC-157")])
            do {
                try await mock.expect(wanted)
                Issue.record("the expectation should have failed")
            } catch {
                #expect(String(describing: error).contains("got Time for your {{ compound_name }}"), "\(error)")
            }
            try await mock.expectNothing(RecordingQuery(token: Glob("ffff*")), within: .milliseconds(20))
            try mock.expectOrder([RecordingQuery(platform: .apns)])
        }
    }

    @Test("wait(for:) returns when an asynchronous send arrives")
    func wait() async throws {
        try await withPushMock { mock in
            let late = Task {
                try await Task.sleep(for: .milliseconds(100))
                expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            }
            // A generous deadline: on a loaded 2-core machine the late TLS connection alone can
            // take seconds (it returns as soon as the send arrives).
            let found = await mock.wait(for: RecordingQuery(platform: .apns), timeout: .seconds(60))
            #expect(found.count == 1)
            try await late.value
        }
    }
}
