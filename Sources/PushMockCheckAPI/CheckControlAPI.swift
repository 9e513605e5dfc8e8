import Foundation
import PushMockCore
package import PushMockGateway
import PushMockJSON
import PushMockQuery
package import PushMockRecording
import PushMockToolkit

/// The control API's check endpoints, plugged into the gateway through its
/// ``ControlAPIExtension`` point (the gateway itself knows only queries):
///
/// - `POST /_pushmock/expectations`: judge expectations (200 / 417), waiting up to their
///   `within`;
/// - `POST /_pushmock/checks/links`, `POST /_pushmock/checks/policy` and
///   `POST /_pushmock/checks/contracts`: the deep-link, policy and payload-contract checks over the recorded exchanges, limited by the same query as
///   `GET /_pushmock/recordings` (in the body's `query`, or as query items).
///
/// All answer 200 when clean and 417 with the findings otherwise, as JSON, JUnit XML or text
/// (`format=`). Files named in a body (`routesFile`, `policyFile`, an expectation's
/// `deepLink.routes`) are read through ``ControlFileAccess``: only under `--checks-dir`.
package struct CheckControlAPI: ControlAPIExtension {
    package init() {}

    package var areas: Set<String> { ["expectations", "checks", "contracts", "report"] }

    package func handle(_ request: ControlRequest, context: ControlAPIContext) throws -> ControlAPIReply {
        // Checks and reports read up to the whole store (a schedule plays up to a million
        // steps): computed on the gateway's own blocking-work threads, so the event loop's
        // other connections and streams, and the cooperative pool's timers, keep going meanwhile.
        if request.segments.first == "report" {
            return .later { try await context.runBlocking { _ in try report(request, context: context) } }
        }
        if request.segments.first == "expectations" {
            return try expectations(request, context: context)
        }
        if request.segments.first == "contracts" {
            return .now(try installedContracts(request, context: context))
        }
        return .later { try await context.runBlocking { cancellation in try check(request, context: context, cancellation: cancellation) } }
    }

    /// `/_pushmock/contracts`: the payload contracts checked at intake. `PUT` (or `POST`) a
    /// contract file (inline, or `{"contractsFile": path}` under `--checks-dir`) to install or
    /// replace it, `GET` to see what is installed, `DELETE` to stop checking.
    private func installedContracts(_ request: ControlRequest, context: ControlAPIContext) throws -> HTTPResponseMessage {
        let annotators = context.state.recordAnnotators
        guard request.segments == ["contracts"] else {
            throw ControlAPIError(404, "no control endpoint /_pushmock/\(request.segments.joined(separator: "/")); see docs/control-api.md")
        }
        switch request.method {
        case "GET":
            guard let installed = annotators.annotator(named: ContractAnnotator.installedName) as? ContractAnnotator else {
                return Self.json(200, .object(["installed": .bool(false)]))
            }
            let contracts = installed.checker.contracts
            var summary = JSONObject()
            summary["installed"] = .bool(true)
            if let name = contracts.name { summary["name"] = .string(name) }
            summary["contracts"] = .array(contracts.contracts.map { .string($0.name) })
            return Self.json(200, .object(summary))
        case "PUT", "POST":
            guard !request.body.isEmpty, let root = try? JSONValue(parsing: request.body) else {
                throw ControlAPIError(400, "a JSON body is required: a contract file, or {\"contractsFile\": path}")
            }
            let contracts = try Self.definition(
                ContractFile.self, inline: root, file: root["contractsFile"]?.stringValue, member: "contractsFile", label: "contracts",
                context: context)
            annotators.install(ContractAnnotator(contracts: contracts))
            return Self.json(200, .object(["installed": .bool(true), "contracts": .array(contracts.contracts.map { .string($0.name) })]))
        case "DELETE":
            return Self.json(200, .object(["removed": .bool(annotators.remove(named: ContractAnnotator.installedName))]))
        default:
            throw ControlAPIError(405, "\(request.method) is not supported on /_pushmock/contracts; GET, PUT or DELETE")
        }
    }

    private static func json(_ status: Int, _ value: JSONValue) -> HTTPResponseMessage {
        var headers = HTTPHeaderList()
        headers.append(name: "content-type", value: "application/json")
        return HTTPResponseMessage(status: status, headers: headers, body: value.compactBytes)
    }

    private func expectations(_ request: ControlRequest, context: ControlAPIContext) throws -> ControlAPIReply {
        guard request.matches("POST", "expectations") else {
            throw ControlAPIError(405, "\(request.method) is not supported on /_pushmock/expectations; POST expectations")
        }
        guard !request.body.isEmpty else { throw ControlAPIError(400, "a JSON body is required: an expectation or an array of them") }
        let files = context.files
        let reader = DefinitionFileReader { path in try files.read(path, member: "deepLink.routes") }
        let batch: ExpectationBatch
        do {
            batch = try ExpectationBatch(json: Data(request.body), files: reader)
        } catch {
            switch error {
            case .query(let problem): throw problem
            case .refused(let refusal): throw refusal.reason
            }
        }
        let format = request.query["format"] ?? "json"
        guard ["json", "junit", "text"].contains(format) else { throw ControlAPIError(400, "format is json, junit or text") }
        let recordings = context.state.recordings
        return .later {
            // Each waits for its window, then is judged at once (a window's end decides "at
            // most"). Judging decodes the store: on the gateway's own threads, as checks are,
            // not on Swift's shared pool, where it held up every long poll's wait.
            var results: [ExpectationResult] = []
            for expectation in batch.expectations {
                await recordings.waitForWindow(of: expectation)
                results.append(try await context.runBlocking { _ in recordings.judge(expectation) })
            }
            let orders = batch.order
            results += try await context.runBlocking { _ in orders.map { recordings.evaluate($0) } }
            return Self.expectationResponse(results, format: format)
        }
    }

    private func check(
        _ request: ControlRequest, context: ControlAPIContext, cancellation: BlockingWorkCancellation
    ) throws -> HTTPResponseMessage {
        let recordings = context.state.recordings
        // A check reads up to the whole store: when nobody waits any more, decoding stops at
        // the next page, the checker at the next record, and nothing is encoded or answered.
        func checked<Report>(_ query: RecordingQuery, by checker: (CancellableRecords) -> Report) throws -> Report {
            let records = recordings.records(matching: query, isCancelled: { cancellation.isCancelled })
            return try Self.checked(records, isCancelled: { cancellation.isCancelled }, by: checker)
        }
        if request.matches("POST", "checks", "links") {
            let body = try CheckRequestBody(request, definition: "routes", allowed: ["options"], now: context.state.clock.now())
            let routes = try Self.definition(RouteTable.self, body, member: "routesFile", label: "routes", context: context)
            let options = try body.decode(DeepLinkChecker.Options.self, member: "options") ?? DeepLinkChecker.Options()
            let checker = DeepLinkChecker(routes: routes, options: options)
            let report = try checked(body.query) { checker.check($0) }
            return try Self.checkResponse(
                CheckOutcome(report), format: body.format, junit: { JUnitReport.testCases(report) }, text: report.detailedText)
        }
        if request.matches("POST", "checks", "policy") {
            let body = try CheckRequestBody(request, definition: "policy", allowed: ["users"], now: context.state.clock.now())
            let policy = try Self.definition(PolicyFile.self, body, member: "policyFile", label: "policy", context: context)
            // The gateway's users unless the body brings its own (`users`, the GET /_pushmock/users form).
            let users = try Self.users(body, context: context)
            let checker = PolicyChecker(policy: policy, users: users)
            let report = try checked(body.query) { checker.check($0) }
            return try Self.checkResponse(
                CheckOutcome(report), format: body.format, junit: { JUnitReport.testCases(report, policy: policy) }, text: report.text)
        }
        if request.matches("POST", "checks", "contracts") {
            let body = try CheckRequestBody(request, definition: "contracts", allowed: ["includeRejected"], now: context.state.clock.now())
            let contracts = try Self.definition(ContractFile.self, body, member: "contractsFile", label: "contracts", context: context)
            let includeRejected = try body.decode(Bool.self, member: "includeRejected") ?? false
            let checker = ContractChecker(contracts: contracts, includeRejected: includeRejected)
            let report = try checked(body.query) { checker.check($0) }
            return try Self.checkResponse(
                CheckOutcome(report), format: body.format, junit: { JUnitReport.testCases(report) }, text: report.text)
        }
        if request.matches("POST", "checks", "schedule") {
            return try schedule(request, context: context, cancellation: cancellation)
        }
        if request.segments.count == 2, ["links", "policy", "contracts", "schedule"].contains(request.segments[1]) {
            throw ControlAPIError(405, "\(request.method) is not supported on /_pushmock/checks/\(request.segments[1]); POST the check")
        }
        throw ControlAPIError(
            404, "no check /_pushmock/\(request.segments.joined(separator: "/")); the checks are links, policy, contracts and schedule")
    }

    /// The records a checker walks: they end early once nobody waits for the answer.
    package typealias CancellableRecords = LazyPrefixWhileSequence<[ExchangeRecord]>

    /// `checker`'s report over `records`, or `CancellationError` once `isCancelled` says nobody
    /// waits: asked before each record the checker takes (so it stops mid-way, seeing fewer
    /// records) and once more before the report would be encoded.
    package static func checked<Report>(
        _ records: [ExchangeRecord], isCancelled: () -> Bool, by checker: (CancellableRecords) -> Report
    ) throws -> Report {
        try withoutActuallyEscaping(isCancelled) { isCancelled in
            if isCancelled() { throw CancellationError() }
            let report = checker(records.lazy.prefix { _ in !isCancelled() })
            if isCancelled() { throw CancellationError() }
            return report
        }
    }

    /// `POST /_pushmock/checks/schedule`: an in-app notification config (`config` inline or
    /// `configFile` under `--checks-dir`) played for `user` from `from` to `until` (default: the
    /// gateway's now) over the gateway's users and events (or the body's `users`); always 200
    /// with the schedule (`docs/on-device-scheduling.md`). No recordings are read.
    private func schedule(
        _ request: ControlRequest, context: ControlAPIContext, cancellation: BlockingWorkCancellation
    ) throws -> HTTPResponseMessage {
        let body = try CheckRequestBody(
            request, definition: "config", allowed: ["user", "from", "until", "checkEvery", "users"], now: context.state.clock.now())
        guard body.query == RecordingQuery() else { throw ControlAPIError(400, "the schedule reads no recordings: give no query") }
        let file = try body.definitionFile.map { ($0, try context.files.read($0, member: "configFile")) }
        let config: InAppNotificationConfig
        do throws(InAppConfigError) {
            if let (path, bytes) = file {
                guard let bytes else { throw InAppConfigError("", "cannot read \(path)") }
                config = try InAppNotificationConfig(json: bytes)
            } else {
                config = try InAppNotificationConfig(json: (body.definition ?? .null).compactBytes)
            }
        } catch {
            throw ControlAPIError(400, "config: \(error.description)")
        }
        guard let userID = try body.decode(String.self, member: "user") else { throw ControlAPIError(400, "give the \"user\"") }
        guard let from = try body.decode(FlexibleTimestamp.self, member: "from")?.timestamp else {
            throw ControlAPIError(400, "give \"from\": when the config reached the device (ISO 8601 or milliseconds)")
        }
        let until = try body.decode(FlexibleTimestamp.self, member: "until")?.timestamp ?? context.state.clock.now()
        var options = OnDeviceScheduler.Options()
        if let text = try body.decode(String.self, member: "checkEvery") {
            guard let interval = DurationText.parse(text), interval > .zero else {
                throw ControlAPIError(400, "checkEvery \"\(text)\" is not a duration (15m, 1h)")
            }
            options.backgroundCheckInterval = interval
        }
        let users = try Self.users(body, context: context)
        guard let user = users.users.first(where: { $0.id == userID }) else {
            throw ControlAPIError(404, "no user \"\(userID)\"; add it with POST /_pushmock/users")
        }
        let schedule = OnDeviceScheduler(config: config, options: options).schedule(
            for: user, events: users.events, from: from, until: until, isCancelled: { cancellation.isCancelled })
        // Cut short: nobody waits for the answer.
        if cancellation.isCancelled { throw CancellationError() }
        if body.format == "text" {
            var headers = HTTPHeaderList()
            headers.append(name: "content-type", value: "text/plain; charset=utf-8")
            return HTTPResponseMessage(status: 200, headers: headers, body: Array((schedule.description + "\n").utf8))
        }
        return try ControlAPI.encoded(schedule, status: 200)
    }

    /// A definition document given inline or as a file under `--checks-dir` (`member` names the
    /// file's member in errors). The file's 403 and 413 come before anything is parsed; a
    /// document that cannot be read or parsed is a 400 `"<label>: …"`.
    static func definition<Document: DefinitionDocument>(
        _ type: Document.Type, inline: JSONValue?, file path: String?, member: String, label: String, context: ControlAPIContext
    ) throws -> Document {
        let file = try path.map { ($0, try context.files.read($0, member: member)) }
        do throws(DefinitionFileError<Document.ErrorCode>) {
            if let (path, bytes) = file {
                guard let bytes else { throw DefinitionFileError(.unreadableFile, "cannot read the \(Document.documentName)", file: path) }
                return try Document(parsing: bytes, file: path)
            }
            return try Document(definition: inline ?? .null)
        } catch {
            throw ControlAPIError(400, "\(label): \(error.description)")
        }
    }

    /// ``definition(_:inline:file:member:label:context:)`` for a check's body.
    static func definition<Document: DefinitionDocument>(
        _ type: Document.Type, _ body: CheckRequestBody, member: String, label: String, context: ControlAPIContext
    ) throws -> Document {
        try definition(type, inline: body.definition, file: body.definitionFile, member: member, label: label, context: context)
    }

    /// The body's `users` (the `GET /_pushmock/users` form), held to what `POST
    /// /_pushmock/users` holds each user to; the gateway's users when the body has none.
    static func users(_ body: CheckRequestBody, context: ControlAPIContext) throws -> UserDirectory {
        guard let users = try body.decode(UserDirectory.self, member: "users") else { return context.state.users.snapshot() }
        do {
            try UserDefinitionCheck.check(users)
        } catch {
            throw ControlAPIError(400, "users: \(error)")
        }
        return users
    }

    /// 200 when every expectation passed, 417 Expectation Failed otherwise (so `curl --fail`
    /// fails a CI step), in JSON, JUnit XML or text.
    static func expectationResponse(_ results: [ExpectationResult], format: String) -> HTTPResponseMessage {
        let status = results.allSatisfy(\.passed) ? 200 : 417
        var headers = HTTPHeaderList()
        switch format {
        case "junit":
            headers.append(name: "content-type", value: "application/xml")
            return HTTPResponseMessage(
                status: status, headers: headers, body: Array(JUnitReport.render(JUnitReport.testCases(results)).utf8))
        case "text":
            headers.append(name: "content-type", value: "text/plain; charset=utf-8")
            return HTTPResponseMessage(
                status: status, headers: headers, body: Array((results.map(\.message).joined(separator: "\n\n") + "\n").utf8))
        default:
            let report = ExpectationReport(results: results)
            return (try? ControlAPI.encoded(report, status: status)) ?? ControlAPI.json(status: 500, ["error": "cannot encode the report"])
        }
    }

    /// 200 when the check passed, 417 Expectation Failed otherwise (as for expectations).
    static func checkResponse<Report: Sendable & Hashable & Codable>(
        _ outcome: CheckOutcome<Report>,
        format: String,
        junit: () -> [JUnitReport.TestCase],
        text: String
    ) throws -> HTTPResponseMessage {
        let status = outcome.passed ? 200 : 417
        var headers = HTTPHeaderList()
        switch format {
        case "junit":
            headers.append(name: "content-type", value: "application/xml")
            return HTTPResponseMessage(status: status, headers: headers, body: Array(JUnitReport.render(junit()).utf8))
        case "text":
            headers.append(name: "content-type", value: "text/plain; charset=utf-8")
            return HTTPResponseMessage(status: status, headers: headers, body: Array((text + "\n").utf8))
        default:
            return try ControlAPI.encoded(outcome, status: status)
        }
    }
}

/// A check's request body: the definition (`routes` / `policy`) inline or as a file under the
/// gateway's `--checks-dir` (`routesFile` / `policyFile`), an optional `query`, and the check's own
/// members; plus `format` and query items from the URL.
struct CheckRequestBody {
    var definition: JSONValue?
    var definitionFile: String?
    var query: RecordingQuery
    var format: String
    private var object: JSONObject

    init(_ request: ControlRequest, definition name: String, allowed: Set<String>, now: @autoclosure () -> Timestamp) throws {
        guard !request.body.isEmpty else {
            throw ControlAPIError(400, "a JSON body is required: {\"\(name)\": {…}} or {\"\(name)File\": \"path\"}")
        }
        let document: JSONValue
        do {
            document = try JSONValue(parsing: request.body)
        } catch {
            throw ControlAPIError(400, "the body is not JSON: \(error)")
        }
        guard let object = document.objectValue else { throw ControlAPIError(400, "the body must be a JSON object") }
        self.object = object
        let known: Set<String> = allowed.union([name, name + "File", "query"])
        for key in object.keys where !known.contains(key) {
            throw ControlAPIError(400, "unknown member \"\(key)\" (expected: \(known.sorted().joined(separator: ", ")))")
        }
        definition = document[name]
        if let file = document[name + "File"] {
            guard let path = file.stringValue else { throw ControlAPIError(400, "\(name)File must be a path") }
            definitionFile = path
        }
        guard (definition == nil) != (definitionFile == nil) else {
            throw ControlAPIError(
                400, "give exactly one of \"\(name)\" (inline) and \"\(name)File\" (a path under the gateway's --checks-dir)")
        }
        format = "json"
        var urlItems: [(name: String, value: String)] = []
        for item in request.queryItems {
            if item.name == "format" {
                guard ["json", "junit", "text"].contains(item.value) else { throw ControlAPIError(400, "format is json, junit or text") }
                format = item.value
            } else if RecordingQuery.queryItemNames.contains(item.name) {
                urlItems.append(item)
            } else {
                throw ControlAPIError(400, "unknown query item \(item.name); see docs/queries.md")
            }
        }
        let bodyQuery = try Self.decode(RecordingQuery.self, from: document["query"])
        guard bodyQuery == nil || urlItems.isEmpty else {
            throw ControlAPIError(400, "give the query in the body or as query items, not both")
        }
        query = try bodyQuery ?? RecordingQuery(queryItems: urlItems, now: now())
    }

    /// A member decoded with `JSONDecoder`; `nil` when absent.
    func decode<T: Decodable>(_ type: T.Type, member: String) throws -> T? {
        try Self.decode(type, from: object.first { $0.key == member }?.value)
    }

    private static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue?) throws -> T? {
        guard let value, !value.isNull else { return nil }
        return try JSONDecoder().decode(type, from: Data(value.compactBytes))
    }
}
