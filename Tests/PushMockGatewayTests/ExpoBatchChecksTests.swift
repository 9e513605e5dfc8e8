import Foundation
import PushMockCore
import PushMockGateway
import PushMockTesting
import Testing

/// An Expo backend batches different messages to different people into one request (the
/// SDKs' chunks of 100). The checks judge each message on its own: its type, its data, its
/// links, its recipients — not the whole batch by its first message.
@Suite("checks on an Expo batch: each message on its own")
struct ExpoBatchChecksTests {
    static let ana = "ExponentPushToken[anaanaanaanaanaanaanaa]"
    static let ben = "ExponentPushToken[benbenbenbenbenbenbenb]"
    static let cai = "ExponentPushToken[caicaicaicaicaicaicaic]"
    static let dee = "ExponentPushToken[deedeedeedeedeedeedeed]"
    static let gone = "ExponentPushToken[gonegonegonegonegonego]"

    /// At 23:00 UTC: a dose reminder for Ana first (allowed at night), then marketing to Ben
    /// (twice), to Cai and Dee in one message, to a token whose app is gone, and to Ana.
    static let batch = """
        [{"to":"\(ana)","title":"Dose","data":{"type":"dose","url":"app://dose/1"}},
         {"to":"\(ben)","title":"Sale","priority":"normal","collapseId":"sale","data":{"type":"marketing","url":"app://sale"}},
         {"to":["\(cai)","\(dee)"],"title":"Sale","data":{"type":"marketing"}},
         {"to":"\(gone)","title":"Sale","data":{"type":"marketing","url":"app://sale"}},
         {"to":"\(ben)","title":"Sale again","data":{"type":"marketing","url":"app://sale"}},
         {"to":"\(ana)","title":"Sale for Ana","data":{"type":"marketing","url":"app://nowhere"}}]
        """

    /// A marketing push must carry a `url` in its data.
    static func marketingContract() throws -> ContractFile {
        try ContractFile(
            parsing: #"""
                {"version": 1, "typeField": "type",
                 "contracts": [{"name": "marketing", "types": ["marketing"], "schema": {"required": ["url"]}}]}
                """#)
    }

    static func sendBatch(_ mock: PushMockHarness) async throws {
        let clock = try #require(mock.state.virtualClock)
        clock.freeze(at: Timestamp(secondsSince1970: 1_795_993_200))  // 2026-11-29T23:00:00Z
        mock.state.expoTokens.register(
            ExpoTokenRecord(
                token: ExpoTokenID(gone), project: ExpoProjectName("@acme/app"), state: .unregistered(at: Timestamp(secondsSince1970: 0))))
        let answer = try await ExpoCurl.post(mock, json: batch)
        #expect(answer.status == 200, "\(answer.text)")
        let outcomes = answer.json?["data"]?.arrayValue?.map { $0["status"]?.stringValue ?? "?" }
        #expect(outcomes == ["ok", "ok", "ok", "ok", "error", "ok", "ok"], "\(answer.text)")
    }

    @Test("policy: quiet hours and caps per message type and recipient; an error ticket reaches no one")
    func policy() async throws {
        try await withPushMock { mock in
            try await Self.sendBatch(mock)
            let policy = try PolicyFile(
                parsing: #"""
                    {"version": 1,
                     "types": [{"name": "dose", "match": {"path": "$[*].data.type", "equals": "dose"}},
                               {"name": "marketing", "match": {"path": "$[*].data.type", "equals": "marketing"}}],
                     "quietHours": [{"name": "night", "start": "22:00", "end": "08:00", "exemptTypes": ["dose"]}],
                     "frequencyCaps": [{"name": "marketing-per-day", "types": ["marketing"], "limit": 1, "calendar": "day"}]}
                    """#)
            let report = mock.checkPolicy(policy)
            #expect(report.notificationCount == 6, "one per message")
            let night = report.violations(.quietHours).map { "\($0.notification.messageIndex ?? -1) \($0.recipient ?? "")" }
            #expect(night == ["1 \(Self.ben)", "2 \(Self.cai)", "2 \(Self.dee)", "4 \(Self.ben)", "5 \(Self.ana)"], "\(report.text)")
            #expect(report.violations(.quietHours).allSatisfy { $0.notificationType == "marketing" })
            let capped = report.violations(.frequencyCap).map { "\($0.notification.messageIndex ?? -1) \($0.recipient ?? "")" }
            #expect(capped == ["4 \(Self.ben)"], "\(report.text)")
            let reference = try #require(report.violations(.frequencyCap).first?.notification)
            #expect(reference.title == "Sale again")
            #expect(reference.token == Self.ben)
            #expect(reference.description.hasPrefix("#\(reference.sequence)[4] 2026-11-29T23:00:00.000Z expo "), "\(reference)")
        }
    }

    @Test("contracts: each message's data against its type's contract")
    func contracts() async throws {
        try await withPushMock { mock in
            try await Self.sendBatch(mock)
            let report = mock.checkContracts(try Self.marketingContract())
            #expect(report.notificationCount == 6)
            #expect(report.violations.map(\.notification.messageIndex) == [2], "\(report.text)")
            #expect(report.violations.first?.notificationType == "marketing")
        }
    }

    /// "Ana got a marketing push" must not pass because the batch that brought Ana her dose
    /// reminder also brought Ben a sale.
    @Test("queries: with a token, payload conditions read that token's messages only")
    func queries() async throws {
        try await withPushMock { mock in
            try await Self.sendBatch(mock)
            let record = try #require(mock.recordings.records { $0.platform == .expo }.first)
            func query(_ token: String, _ predicates: String...) throws -> RecordingQuery {
                RecordingQuery(platform: .expo, token: Glob(token), payload: try predicates.map { try PayloadPredicate(parsing: $0) })
            }
            #expect(try query(Self.ben, "$[*].data.type=marketing").matches(record))
            #expect(try !query(Self.ben, "$[*].data.type=dose").matches(record))
            #expect(try query(Self.ana, "$[*].data.type=dose").matches(record))
            #expect(try query(Self.ana, "$[*].title=Sale for Ana").matches(record))
            #expect(try !query(Self.ana, "$[*].title=Sale").matches(record), "Ben's and Cai's title")
            #expect(try query(Self.dee, "$[0].title=Sale").matches(record), "a message with a list of recipients")
            // A gone token's message was not delivered; without a token, the whole batch is read.
            #expect(try !query(Self.gone, "$[*].data.type=marketing").matches(record))
            #expect(RecordingQuery(platform: .expo, payload: [try PayloadPredicate(parsing: "$[*].data.type=dose")]).matches(record))
            // Priority and collapse id too: Ben's sale went at normal priority (APNs 5) with a
            // collapse id; the record as a whole says the first message's (none).
            #expect(RecordingQuery(platform: .expo, token: Glob(Self.ben), priority: 5).matches(record))
            #expect(!RecordingQuery(platform: .expo, token: Glob(Self.ana), priority: 5).matches(record))
            #expect(RecordingQuery(platform: .expo, token: Glob(Self.ben), collapseID: "sale").matches(record))
            #expect(!RecordingQuery(platform: .expo, token: Glob(Self.cai), collapseID: "sale").matches(record))
            // Without a token, any message of the batch may match, as payload conditions read
            // the whole batch: the first message alone no longer decides.
            #expect(RecordingQuery(platform: .expo, priority: 5).matches(record))
            #expect(RecordingQuery(platform: .expo, collapseID: "sale").matches(record))
            #expect(!RecordingQuery(platform: .expo, collapseID: "other").matches(record))
            // Through the harness's assertion too.
            let misses = mock.recordings.records(matching: try query(Self.ana, "$[*].data.url=app://sale"))
            #expect(misses.isEmpty)
        }
    }

    @Test("contracts at intake: the record's finding names the message")
    func contractsAtIntake() async throws {
        try await withPushMock { mock in
            mock.checkContractsAtIntake(try Self.marketingContract())
            try await Self.sendBatch(mock)
            let record = try #require(mock.recordings.records { $0.platform == .expo }.first)
            let findings = (record.notification?.lint ?? []).filter { $0.source == "contract:marketing" }
            #expect(findings.map(\.field) == ["[2]"], "\(findings)")
            #expect(findings.map(\.code) == ["contract.marketing.required"])
        }
    }

    @Test("links: each message's own links, a message without one found among messages with")
    func links() async throws {
        try await withPushMock { mock in
            try await Self.sendBatch(mock)
            let routes = try RouteTable(
                parsing: #"""
                    {"version": 1, "scheme": "app",
                     "routes": [{"name": "dose", "pattern": "app://dose/{id}", "screen": "/dose"},
                                {"name": "sale", "pattern": "app://sale", "screen": "/sale"}]}
                    """#)
            let report = mock.checkLinks(routes)
            #expect(report.notifications.map(\.notification.messageIndex) == [0, 1, 2, 3, 4, 5])
            let problems = report.notifications.map { $0.problems.map(\.kind.rawValue) }
            #expect(problems == [[], [], ["no-link"], [], [], ["no-route"]], "\(report.text)")
            #expect(report.notifications[1].links.map(\.location) == ["$[1].data.url"])
        }
    }
}
