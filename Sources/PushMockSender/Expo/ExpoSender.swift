import NIOCore
import NIOSSL
import PushMockCore
import PushMockJSON
import PushMockTransport

/// A sender for the Expo push service (or PushMock standing in for it), like the official SDKs:
/// messages go in batches of up to 100 per request, up to 6 requests at once over one HTTP/2
/// connection, bodies over 1 KiB gzip-compressed; whole requests are retried on 429, 5xx and
/// connection faults with exponential backoff (honouring `Retry-After`); receipts are fetched
/// 1000 ids at a time and polled until they are all in; both reports list the tokens to delete
/// (`DeviceNotRegistered`).
///
/// ```swift
/// let sender = try ExpoSender(configuration: .init(server: try SenderEndpoint(url: "http://127.0.0.1:2198")))
/// let report = await sender.send(tokens.map { ExpoPushMessage(to: $0, title: "Reminder") })
/// let receipts = await sender.pollReceipts(for: report, interval: .seconds(1), timeout: .seconds(60))
/// print(report.summary, receipts.tokensToDelete)
/// await sender.shutdown()
/// ```
public final class ExpoSender: Sendable {
    public let configuration: ExpoSenderConfiguration
    private let connections: ExpoConnectionHolder
    private let sendPath: String
    private let receiptsPath: String

    public init(configuration: ExpoSenderConfiguration) throws(SenderError) {
        try configuration.validate()
        var tls: TLSConfiguration?
        if configuration.server.usesTLS {
            var settings = TLSConfiguration.makeClientConfiguration()
            settings.applicationProtocols = ["h2"]
            settings.trustRoots = try configuration.trustRoots.nioTrustRoots()
            tls = settings
        }
        let server = configuration.server
        self.configuration = configuration
        self.connections = ExpoConnectionHolder(
            configuration: HTTP2ClientConnection.Configuration(
                host: server.host,
                port: server.port,
                tls: tls,
                serverHostname: server.serverHostname,
                authority: server.authority,
                connectTimeout: configuration.connectTimeout
            )
        )
        self.sendPath = server.pathPrefix + "/--/api/v2/push/send"
        self.receiptsPath = server.pathPrefix + "/--/api/v2/push/getReceipts"
    }

    /// Sends every message; one ticket per message, in order.
    public func send(_ messages: [ExpoPushMessage]) async -> ExpoSendReport {
        let started = ContinuousClock.now
        let batches = stride(from: 0, to: messages.count, by: configuration.messagesPerRequest).map {
            Array(messages[$0..<min($0 + configuration.messagesPerRequest, messages.count)])
        }
        var outcomes = [[ExpoTicketOutcome]](repeating: [], count: batches.count)
        var requests = 0
        var retries = 0
        await withTaskGroup(of: (Int, [ExpoTicketOutcome], Int).self) { group in
            var next = 0
            func startNext() {
                guard next < batches.count else { return }
                let index = next
                let batch = batches[index]
                next += 1
                group.addTask { [self] in
                    let (tickets, attempts) = await self.sendBatch(batch)
                    return (index, tickets, attempts)
                }
            }
            for _ in 0..<min(configuration.concurrentRequests, batches.count) { startNext() }
            while let (index, tickets, attempts) = await group.next() {
                outcomes[index] = tickets
                requests += attempts
                retries += attempts - 1
                startNext()
            }
        }
        var tickets: [ExpoTicketResult] = []
        tickets.reserveCapacity(messages.count)
        for (batch, results) in zip(batches, outcomes) {
            for (message, outcome) in zip(batch, results) {
                tickets.append(ExpoTicketResult(token: message.to, outcome: outcome))
            }
        }
        return ExpoSendReport(tickets: tickets, requests: requests, retries: retries, duration: ContinuousClock.now - started)
    }

    /// The receipts the service has for `ids` (absent ones are not ready, unknown or expired).
    public func receipts(for ids: [String]) async throws(SenderError) -> [String: ExpoReceiptOutcome] {
        try await receipts(for: ids, timeout: configuration.requestTimeout)
    }

    /// ``receipts(for:)`` with each request's timeout given (a poll's remaining time).
    func receipts(for ids: [String], timeout: Duration) async throws(SenderError) -> [String: ExpoReceiptOutcome] {
        var result: [String: ExpoReceiptOutcome] = [:]
        for start in stride(from: 0, to: ids.count, by: configuration.receiptIDsPerRequest) {
            let chunk = Array(ids[start..<min(start + configuration.receiptIDsPerRequest, ids.count)])
            let body = JSONValue.object(["ids": .array(chunk.map(JSONValue.string))]).compactBytes
            let json: JSONValue
            do {
                (json, _) = try await exchange(path: receiptsPath, body: body, timeout: timeout)
            } catch {
                switch error {
                case .requestError(let status, let code, let message, _):
                    throw SenderError(.serverError, "getReceipts: \(status) \(code): \(message)")
                case .transport(let error):
                    throw error
                }
            }
            guard let data = json["data"]?.objectValue else {
                throw SenderError(.serverError, "getReceipts answered without data: \(json.compactString)")
            }
            // Only the ids asked for: receipts for others (a confused or hostile server) were
            // counted as ok and turned a send with missing receipts into exit status 0.
            let asked = Set(chunk)
            for (id, receipt) in data where asked.contains(id) {
                if receipt["status"]?.stringValue == "ok" {
                    result[id] = .ok
                } else {
                    result[id] = .error(
                        code: receipt["details"]?["error"]?.stringValue ?? "UnknownError",
                        message: receipt["message"]?.stringValue ?? ""
                    )
                }
            }
        }
        return result
    }

    /// Polls the receipts of `report`'s accepted messages every `interval` until all are in or
    /// `timeout` has passed (wall clock).
    public func pollReceipts(for report: ExpoSendReport, interval: Duration, timeout: Duration) async -> ExpoReceiptReport {
        let tokens = report.receiptIDs
        var pending = Array(tokens.keys).sorted()
        var receipts: [String: ExpoReceiptOutcome] = [:]
        let deadline = ContinuousClock.now + timeout
        while !pending.isEmpty {
            // No request outlives the poll: a getReceipts that never answered held a
            // --receipt-timeout of 2 s for the whole request timeout.
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { break }
            if let fetched = try? await self.receipts(for: pending, timeout: min(configuration.requestTimeout, remaining)) {
                receipts.merge(fetched) { $1 }
                pending.removeAll { fetched[$0] != nil }
            }
            guard !pending.isEmpty, ContinuousClock.now + interval <= deadline else { break }
            do { try await configuration.sleep(interval) } catch { break }
        }
        var delete = Set(report.tokensToDelete)
        for (id, outcome) in receipts {
            if case .error(let code, _) = outcome, code == "DeviceNotRegistered", let token = tokens[id] {
                delete.insert(token)
            }
        }
        return ExpoReceiptReport(receipts: receipts, missing: pending, tokensToDelete: delete.sorted())
    }

    /// Closes the connection.
    public func shutdown() async {
        await connections.close()
    }

    // MARK: One request

    /// One batch with retries: its tickets and the number of attempts made.
    private func sendBatch(_ batch: [ExpoPushMessage]) async -> ([ExpoTicketOutcome], Int) {
        let body = JSONValue.array(batch.map(\.json)).compactBytes
        let (result, attempts) = await exchangeWithRetries(path: sendPath, body: body, extraHeaders: HTTPHeaderList())
        switch result {
        case .success(let json): return (Self.tickets(from: json, count: batch.count), attempts)
        case .failure(let error): return (Self.failed(batch.count, Self.failure(error)), attempts)
        }
    }

    /// Sends one request exactly as given — a journal's recorded send, replayed: the body as it
    /// is (gzip-compressed over the threshold), with the sender's own access token and retry
    /// policy. `wireRequest.path` is appended to the server's path prefix; of its headers only
    /// those the sender does not set itself are added (a recorded `content-encoding` or
    /// `authorization` never is).
    public func send(wireRequest: WireRequest) async -> ExpoRequestResult {
        var extra = HTTPHeaderList()
        for field in wireRequest.headers where !Self.ownHeaders.contains(field.name.lowercased()) {
            extra.append(name: field.name, value: field.value)
        }
        let (result, attempts) = await exchangeWithRetries(
            path: configuration.server.pathPrefix + wireRequest.path, body: wireRequest.body, extraHeaders: extra)
        switch result {
        case .success(let json):
            return ExpoRequestResult(outcome: .tickets(Self.tickets(from: json)), attempts: attempts)
        case .failure(.requestError(let status, let code, let message, _)):
            return ExpoRequestResult(outcome: .requestError(status: status, code: code, message: message), attempts: attempts)
        case .failure(.transport(let error)):
            return ExpoRequestResult(outcome: .failed(code: error.code.description, message: error.message), attempts: attempts)
        }
    }

    /// Headers the sender writes itself; the same names in a replayed request are left out.
    static let ownHeaders: Set<String> = [
        "content-type", "accept", "accept-encoding", "content-encoding", "content-length", "user-agent", "authorization", "host",
        "connection", "transfer-encoding", "te", "keep-alive", "upgrade",
    ]

    /// One request with the retry policy: the answer's JSON or the last error, and the attempts.
    private func exchangeWithRetries(
        path: String,
        body: [UInt8],
        extraHeaders: HTTPHeaderList
    ) async -> (Result<JSONValue, ExpoExchangeError>, Int) {
        var attempt = 0
        while true {
            attempt += 1
            do {
                let (json, _) = try await exchange(path: path, body: body, extraHeaders: extraHeaders)
                return (.success(json), attempt)
            } catch let failure {
                if failure.isRetryable(by: configuration.retry),
                    let delay = configuration.retry.delay(
                        afterAttempt: attempt, retryAfter: failure.retryAfter, unit: configuration.jitter.next())
                {
                    do { try await configuration.sleep(delay) } catch { return (.failure(failure), attempt) }
                    continue
                }
                return (.failure(failure), attempt)
            }
        }
    }

    private static func failed(_ count: Int, _ failure: (code: String, message: String)) -> [ExpoTicketOutcome] {
        Array(repeating: .requestFailed(code: failure.code, message: failure.message), count: count)
    }

    private static func failure(_ error: ExpoExchangeError) -> (code: String, message: String) {
        switch error {
        case .requestError(_, let code, let message, _): return (code, message)
        case .transport(let error): return (error.code.description, error.message)
        }
    }

    /// `{"data":[tickets]}` (or one ticket object) read in order, when there are `count`.
    private static func tickets(from json: JSONValue, count: Int) -> [ExpoTicketOutcome] {
        let tickets = tickets(from: json)
        guard tickets.count == count else {
            return failed(
                count, ("UNEXPECTED_RESPONSE", "expected \(count) tickets, got \(tickets.count): \(json.compactString.prefix(200))"))
        }
        return tickets
    }

    /// `{"data":[tickets]}` (or one ticket object) read in order.
    private static func tickets(from json: JSONValue) -> [ExpoTicketOutcome] {
        let list: [JSONValue]
        if let array = json["data"]?.arrayValue {
            list = array
        } else if let single = json["data"], single.objectValue != nil {
            list = [single]
        } else {
            list = []
        }
        return list.map { ticket in
            if ticket["status"]?.stringValue == "ok", let id = ticket["id"]?.stringValue {
                return .ok(receiptID: id)
            }
            return .error(
                code: ticket["details"]?["error"]?.stringValue ?? "UnknownError",
                message: ticket["message"]?.stringValue ?? ""
            )
        }
    }

    /// POSTs `body` (gzip over the threshold) and returns the decoded JSON of a 200 answer.
    private func exchange(
        path: String,
        body: [UInt8],
        extraHeaders: HTTPHeaderList = HTTPHeaderList(),
        timeout: Duration? = nil
    ) async throws(ExpoExchangeError) -> (JSONValue, HTTPResponseMessage) {
        var headers = HTTPHeaderList()
        for field in extraHeaders { headers.append(name: field.name, value: field.value) }
        headers.append(name: "content-type", value: "application/json")
        headers.append(name: "accept", value: "application/json")
        headers.append(name: "accept-encoding", value: "gzip, deflate")
        headers.append(name: "user-agent", value: "pushmock-expo-sender")
        if let accessToken = configuration.accessToken {
            headers.append(name: "authorization", value: "Bearer \(accessToken)")
        }
        var payload = body
        if body.count > configuration.gzipThreshold {
            payload = HTTPContentCoding.gzipCompress(body)
            headers.append(name: "content-encoding", value: "gzip")
        }
        let server = configuration.server
        let request = HTTPRequestMessage(
            method: "POST",
            path: path,
            authority: server.authority ?? (server.usesTLS && server.port == 443 ? server.host : "\(server.host):\(server.port)"),
            scheme: server.usesTLS ? "https" : "http",
            headers: headers,
            body: payload
        )
        let response: HTTPResponseMessage
        do {
            let connection = try await connections.connection()
            response = try await withSenderTimeout(timeout ?? configuration.requestTimeout) {
                try await connection.send(request)
            }
        } catch let error as SenderError {
            await connections.reset()
            throw .transport(error)
        } catch {
            await connections.reset()
            let message =
                ConnectFailureText.isConnectFailure(error)
                ? "cannot connect to \(server): \(ConnectFailureText.describe(error))"
                : "\(error)"
            throw .transport(SenderError(.connectionFailed, message, cause: error))
        }
        var bytes = response.body
        if let coding = response.headers.first(named: "content-encoding").flatMap(HTTPContentCoding.init(headerValue:)) {
            do {
                bytes = try coding.decode(bytes, limit: 64 << 20)
            } catch {
                // An answer, not a lost connection: the service may have accepted the batch (a
                // 200), so it is retried only as its status says. As a transport fault it was
                // sent again, and delivered twice.
                let problem: String
                if case .tooLarge(let limit) = error {
                    problem = "the answer decodes to more than \(limit) bytes of \(coding)"
                } else {
                    problem = "the answer could not be decoded as \(coding)"
                }
                throw .requestError(status: response.status, code: "UNREADABLE_RESPONSE", message: problem, retryAfter: nil)
            }
        }
        let json = (try? JSONValue(parsing: bytes)) ?? .null
        // As for APNs and FCM: seconds ≥ 0 or an HTTP-date (a negative value asked for no wait
        // at all, and the retries came at once).
        let retryAfter = response.headers.first(named: "retry-after").flatMap {
            RetryAfter.parse($0, now: SystemClock().now())
        }
        if let error = json["errors"]?[0] {
            throw .requestError(
                status: response.status,
                code: error["code"]?.stringValue ?? "UNKNOWN_ERROR",
                message: error["message"]?.stringValue ?? "",
                retryAfter: retryAfter
            )
        }
        guard response.status == 200, json["data"] != nil else {
            throw .requestError(
                status: response.status,
                code: "HTTP_\(response.status)",
                message: String(decoding: bytes.prefix(200), as: UTF8.self),
                retryAfter: retryAfter
            )
        }
        return (json, response)
    }
}

/// Why one request to the Expo API failed.
enum ExpoExchangeError: Error {
    /// The service answered with `errors` or a non-200 status.
    case requestError(status: Int, code: String, message: String, retryAfter: Duration?)
    /// No answer: connect failure, reset, timeout.
    case transport(SenderError)

    func isRetryable(by policy: RetryPolicy) -> Bool {
        switch self {
        case .requestError(let status, _, _, _): return policy.retryableStatuses.contains(status)
        case .transport(let error):
            return error.code == .timeout ? policy.retriesTimeouts : policy.retriesConnectionFaults
        }
    }

    var retryAfter: Duration? {
        if case .requestError(_, _, _, let retryAfter) = self { return retryAfter }
        return nil
    }
}

/// The sender's one HTTP/2 connection, opened on first use and again after a failure.
actor ExpoConnectionHolder {
    private let configuration: HTTP2ClientConnection.Configuration
    private var current: HTTP2ClientConnection?
    private var opening: Task<HTTP2ClientConnection, any Error>?

    init(configuration: HTTP2ClientConnection.Configuration) {
        self.configuration = configuration
    }

    func connection() async throws -> HTTP2ClientConnection {
        if let current, current.isActive { return current }
        if let opening { return try await opening.value }
        let configuration = self.configuration
        let task = Task { try await HTTP2ClientConnection.connect(to: configuration) }
        opening = task
        defer { opening = nil }
        let connection = try await task.value
        current = connection
        return connection
    }

    func reset() async {
        let old = current
        current = nil
        await old?.close()
    }

    func close() async {
        await reset()
    }
}
