import Foundation
import PushMockCore
public import PushMockJSON
public import PushMockRecording

/// Turns exchange records into golden entries: what a reviewer cares about (platform, path,
/// push headers, authentication, payload, response), without transport noise (connection,
/// stream, latency, user agent, receive time), and with volatile values replaced by stable
/// placeholders.
///
/// An entry, as written to the file:
///
/// ```json
/// {
///   "platform": "apns",
///   "environment": "sandbox",
///   "method": "POST",
///   "path": "/3/device/<token-1>",
///   "headers": {
///     "apns-expiration": "+3600s",
///     "apns-push-type": "alert",
///     "apns-topic": "com.example.app"
///   },
///   "auth": { "scheme": "bearer-jwt", "jwtHeader": {…}, "jwtClaims": { "iss": "DEF123GHIJ" } },
///   "payload": { "aps": { "alert": { "title": "Time for your dose" } } },
///   "response": { "status": 200, "headers": { "apns-id": "<apns-id-1>" } }
/// }
/// ```
///
/// Placeholders are numbered per file, in order of first appearance, and the same value always
/// gets the same placeholder (see `docs/golden-files.md` for the full list of rules).
public struct GoldenNormalizer: Sendable {
    public var configuration: GoldenConfiguration

    /// Creates a normaliser.
    public init(configuration: GoldenConfiguration = GoldenConfiguration()) {
        self.configuration = configuration
    }

    /// The entries for `records` (those on ``GoldenConfiguration/platforms``), in file order,
    /// with placeholders numbered across all of them.
    public func entries(for records: some Sequence<ExchangeRecord>) -> [JSONValue] {
        var selected = records.filter { record in
            configuration.platforms.map { $0.contains(record.platform) } ?? true
        }
        if configuration.order == .byContent {
            // Sort on entries whose placeholders carry no numbers, then number in sorted order.
            var anonymous = NormalizationRun(configuration: configuration, isAnonymous: true)
            let keys = selected.map { anonymous.entry(for: $0).compactString }
            selected = selected.indices.sorted { left, right in
                if keys[left] == keys[right] { return left < right }
                return keys[left].utf8.lexicographicallyPrecedes(keys[right].utf8)
            }.map { selected[$0] }
        }
        var run = NormalizationRun(configuration: configuration, isAnonymous: false)
        let entries = selected.map { run.entry(for: $0) }
        // Values first seen in a later entry (a token echoed in an earlier payload) are
        // replaced too, so the substitution pass runs once everything is known.
        return entries.map { run.substituted($0) }
    }

    /// The entry for one record on its own (placeholders numbered from 1).
    public func entry(for record: ExchangeRecord) -> JSONValue {
        var run = NormalizationRun(configuration: configuration, isAnonymous: false)
        return run.substituted(run.entry(for: record))
    }
}

/// The mutable state of normalising one file: placeholders and compiled patterns.
private struct NormalizationRun {
    let configuration: GoldenConfiguration
    var placeholders: PlaceholderTable
    var patterns: [String: Regex<AnyRegexOutput>] = [:]

    init(configuration: GoldenConfiguration, isAnonymous: Bool) {
        self.configuration = configuration
        placeholders = PlaceholderTable(isAnonymous: isAnonymous)
    }

    static let apnsDevicePathPrefix = "/3/device/"

    mutating func entry(for record: ExchangeRecord) -> JSONValue {
        let token = record.notification?.token
        if let token { aliasToken(token) }
        // A rejected FCM request may have no notification info (the gateway stopped at
        // validation), but its message still names the registration token.
        if record.platform == .fcm, let messageToken = record.request.body.jsonValue?["message"]?["token"]?.stringValue {
            aliasToken(messageToken)
        }
        if record.platform == .expo {
            aliasExpoValues(record)
        }

        var entry = JSONObject()
        entry["platform"] = .string(record.platform.rawValue)
        if let environment = record.environment {
            entry["environment"] = .string(environment)
        }
        entry["method"] = .string(record.request.method)
        entry["path"] = .string(normalizedPath(record.request.path))
        let headers = normalizedHeaders(record.request.headers, selection: configuration.requestHeaders, record: record)
        if !headers.isEmpty {
            entry["headers"] = .object(headers)
        }
        if configuration.includesAuthentication, let auth = record.auth {
            entry["auth"] = authentication(auth)
        }
        switch record.request.body {
        case .none:
            break
        case .json:
            if let payload = record.request.body.jsonValue {
                entry["payload"] = normalizedPayload(payload, record: record)
            } else if let text = record.request.body.textValue {
                entry["payloadText"] = .string(text)
            }
        case .text(let text):
            entry["payloadText"] = .string(text)
        case .binary(let bytes):
            entry["payloadBase64"] = .string(Data(bytes).base64EncodedString())
        }
        entry["response"] = .object(response(record))
        if configuration.includesLint, let lint = record.notification?.lint, !lint.isEmpty {
            entry["lint"] = .array(lint.map { .string($0.code) })
        }
        let annotations = record.annotations.filter { configuration.annotations.contains($0.key) }
        if !annotations.isEmpty {
            let sorted = annotations.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            entry["annotations"] = .object(JSONObject(sorted.map { (key: $0.key, value: JSONValue.string($0.value)) }))
        }

        var value = JSONValue.object(entry)
        for rule in configuration.rules {
            value = apply(rule, to: value)
        }
        return value
    }

    // MARK: Tokens and identifiers

    private mutating func aliasToken(_ token: String) {
        guard configuration.deviceTokens == .alias, !token.isEmpty else { return }
        placeholders.substitute(token, with: placeholders.placeholder(for: token, kind: "token"))
    }

    /// The path with the APNs device token (and any token seen before) replaced by its alias.
    private mutating func normalizedPath(_ path: String) -> String {
        guard configuration.deviceTokens == .alias else { return path }
        if path.hasPrefix(Self.apnsDevicePathPrefix) {
            let rest = path.dropFirst(Self.apnsDevicePathPrefix.count)
            let end = rest.firstIndex { $0 == "?" || $0 == "/" } ?? rest.endIndex
            let token = String(rest[..<end])
            if !token.isEmpty {
                aliasToken(token)
                return Self.apnsDevicePathPrefix + (placeholders.substitutions[token] ?? token) + rest[end...]
            }
        }
        return path
    }

    /// Expo requests name their recipients in the body (`to`: a token or a list, in one
    /// message or an array of them) and their receipts by random ids: tickets' `id`s, the `ids`
    /// a getReceipts request asks for and the keys of its answer. Tokens get the token alias,
    /// receipt ids `<receipt-n>` numbered in order of first appearance (the send that issued
    /// them, normally).
    private mutating func aliasExpoValues(_ record: ExchangeRecord) {
        for token in record.notification?.resolvedTokens ?? [] { aliasToken(token) }
        let request = record.request.body.jsonValue
        for message in request?.arrayValue ?? (request.map { [$0] } ?? []) {
            if let token = message["to"]?.stringValue { aliasToken(token) }
            for token in message["to"]?.arrayValue ?? [] {
                if let token = token.stringValue { aliasToken(token) }
            }
        }
        for id in request?["ids"]?.arrayValue ?? [] {
            if let id = id.stringValue { _ = identifier(id, kind: "receipt") }
        }
        guard let data = record.response.body.jsonValue?["data"] else { return }
        if let tickets = data.arrayValue {
            for ticket in tickets {
                if let id = ticket["id"]?.stringValue { _ = identifier(id, kind: "receipt") }
            }
        } else if data["status"] != nil {
            if let id = data["id"]?.stringValue { _ = identifier(id, kind: "receipt") }
        } else if let receipts = data.objectValue {
            for member in receipts.members { _ = identifier(member.key, kind: "receipt") }
        }
    }

    /// The outcome of each message of an Expo send (`ok <receipt-n>` or the error code), in
    /// order, or of each receipt of a getReceipts answer (by receipt placeholder) — what a
    /// reviewer checks, without the response body's noise.
    private mutating func expoOutcomes(_ record: ExchangeRecord, into response: inout JSONObject) {
        guard record.response.status == 200, let data = record.response.body.jsonValue?["data"] else { return }
        func outcome(_ item: JSONValue) -> String {
            if item["status"]?.stringValue == "ok" {
                return item["id"]?.stringValue.map { "ok " + identifier($0, kind: "receipt") } ?? "ok"
            }
            return item["details"]?["error"]?.stringValue ?? item["message"]?.stringValue ?? "error"
        }
        if let tickets = data.arrayValue {
            response["tickets"] = .array(tickets.map { .string(outcome($0)) })
        } else if data["status"] != nil {
            response["tickets"] = .array([.string(outcome(data))])
        } else if let receipts = data.objectValue {
            let members = receipts.members.map { (key: identifier($0.key, kind: "receipt"), value: JSONValue.string(outcome($0.value))) }
            response["receipts"] = .object(JSONObject(JSONObject(members).sortedMembers))
        }
    }

    /// A getReceipts answer's keys are receipt ids; they become placeholders before members
    /// are sorted, so the order does not depend on the random ids.
    private mutating func expoResponseBody(_ body: JSONValue) -> JSONValue {
        guard let data = body["data"], data["status"] == nil, let receipts = data.objectValue, case .object(var root) = body else {
            return body
        }
        let renamed = receipts.members.map { (key: identifier($0.key, kind: "receipt"), value: $0.value) }
        root["data"] = .object(JSONObject(renamed))
        return .object(root)
    }

    private mutating func identifier(_ value: String, kind: String) -> String {
        // UUIDs are case-insensitive: an apns-id echoed in another case is the same id.
        let key = value.lowercased()
        let placeholder = placeholders.placeholder(for: key, kind: kind)
        placeholders.substitute(value, with: placeholder)
        placeholders.substitute(key, with: placeholder)
        return placeholder
    }

    /// `projects/p/messages/0:1795…%3a1b…` → `projects/p/messages/<message-1>`.
    private mutating func messageName(_ name: String) -> String {
        let placeholder = placeholders.placeholder(for: name, kind: "message")
        let normalized: String
        if let range = name.range(of: "/messages/") {
            normalized = name[..<range.upperBound] + placeholder
        } else {
            normalized = placeholder
        }
        placeholders.substitute(name, with: normalized)
        return normalized
    }

    // MARK: Headers

    private mutating func normalizedHeaders(
        _ headers: HTTPHeaderList,
        selection: GoldenHeaderSelection,
        record: ExchangeRecord
    ) -> JSONObject {
        var members: [JSONObject.Member] = []
        for field in headers where selection.includes(field.name) {
            let name = field.name.lowercased()
            members.append((key: name, value: .string(normalizedHeaderValue(name: name, value: field.value, record: record))))
        }
        // Wire order is transport noise; duplicates keep their relative order.
        return JSONObject(JSONObject(members).sortedMembers)
    }

    private mutating func normalizedHeaderValue(name: String, value: String, record: ExchangeRecord) -> String {
        switch name {
        case "apns-id": identifier(value, kind: "apns-id")
        case "apns-unique-id": identifier(value, kind: "apns-unique-id")
        case "apns-expiration": renderedExpiration(value, receivedAt: record.timeMilliseconds)
        case "authorization": redactedAuthorization(value, auth: record.auth)
        default: value
        }
    }

    private func renderedExpiration(_ text: String, receivedAt milliseconds: Int64) -> String {
        guard case .relativeToSendTime(let granularity) = configuration.expiration,
            let seconds = Int64(text.trimmingCharacters(in: .whitespaces))
        else { return text }
        if seconds == 0 { return "0" }
        let (expiresAt, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return text }
        let (offset, offsetOverflow) = expiresAt.subtractingReportingOverflow(milliseconds)
        guard !offsetOverflow else { return text }
        let step = Double(max(1, granularity))
        let rounded = Int64((Double(offset) / 1000 / step).rounded() * step)
        return rounded >= 0 ? "+\(rounded)s" : "\(rounded)s"
    }

    /// `bearer <jwt>` / `Bearer <access-token>` (keeping the scheme's spelling), else
    /// `<redacted>`. The gateway already withholds signatures; what remains names a key or a
    /// token fingerprint that changes between runs.
    private func redactedAuthorization(_ value: String, auth: AuthInfo?) -> String {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard let scheme = parts.first, scheme.lowercased() == "bearer" else { return "<redacted>" }
        let credential = parts.count > 1 ? String(parts[1]) : ""
        let isJWT = auth?.scheme == "bearer-jwt" || Self.looksLikeJWT(credential) || credential.hasPrefix("[JWT")
        return "\(scheme) " + (isJWT ? "<jwt>" : "<access-token>")
    }

    // MARK: Authentication

    private func authentication(_ auth: AuthInfo) -> JSONValue {
        var object = JSONObject()
        object["scheme"] = .string(auth.scheme)
        if let bytes = auth.jwtHeader, let header = try? JSONValue(parsing: bytes) {
            object["jwtHeader"] = Self.sortedMembers(header)
        }
        if let bytes = auth.jwtClaims, let claims = try? JSONValue(parsing: bytes) {
            if case .object(var members) = claims {
                members.members.removeAll { configuration.volatileJWTClaims.contains($0.key) }
                object["jwtClaims"] = Self.sortedMembers(.object(members))
            } else {
                object["jwtClaims"] = Self.sortedMembers(claims)
            }
        }
        if let subject = auth.subject {
            object["subject"] = .string(subject)
        }
        return .object(object)
    }

    // MARK: Payload and response

    private mutating func normalizedPayload(_ payload: JSONValue, record: ExchangeRecord) -> JSONValue {
        var payload = payload
        if record.platform == .fcm {
            // FCM carries APNs headers inside the message; they are as volatile there.
            let headers: [JSONPath.Component] = [.key("message"), .key("apns"), .key("headers")]
            payload =
                JSONEditing.transform(payload, at: headers + [.key("apns-expiration")]) { value in
                    guard let text = value.stringValue else { return value }
                    return .string(renderedExpiration(text, receivedAt: record.timeMilliseconds))
                } ?? payload
            payload =
                JSONEditing.transform(payload, at: headers + [.key("apns-id")]) { value in
                    guard let text = value.stringValue else { return value }
                    return .string(identifier(text, kind: "apns-id"))
                } ?? payload
        }
        if configuration.redactsJWTsInPayload {
            payload = Self.redactingJWTs(payload)
        }
        return configuration.sortsPayloadMembers ? Self.sortedMembers(payload) : payload
    }

    private mutating func response(_ record: ExchangeRecord) -> JSONObject {
        var response = JSONObject()
        response["status"] = JSONValue(record.response.status)
        if let reason = record.response.reason {
            response["reason"] = .string(reason)
        }
        if record.response.timestampMilliseconds != nil {
            response["timestamp"] = "<timestamp>"
        }
        if record.platform == .fcm,
            let name = record.notification?.messageID ?? record.response.body.jsonValue?["name"]?.stringValue
        {
            response["name"] = .string(messageName(name))
        }
        if record.platform == .expo {
            expoOutcomes(record, into: &response)
        }
        let headers = normalizedHeaders(record.response.headers, selection: configuration.responseHeaders, record: record)
        if !headers.isEmpty {
            response["headers"] = .object(headers)
        }
        if configuration.includesResponseBody {
            switch record.response.body {
            case .none:
                break
            case .json:
                if var body = record.response.body.jsonValue {
                    if body["timestamp"] != nil, case .object(var members) = body {
                        members["timestamp"] = "<timestamp>"
                        body = .object(members)
                    }
                    if configuration.redactsJWTsInPayload { body = Self.redactingJWTs(body) }
                    if record.platform == .expo { body = expoResponseBody(body) }
                    response["body"] = Self.sortedMembers(body)
                }
            case .text(let text):
                response["bodyText"] = .string(text)
            case .binary(let bytes):
                response["bodyBase64"] = .string(Data(bytes).base64EncodedString())
            }
        }
        return response
    }

    // MARK: Rules

    private mutating func apply(_ rule: GoldenRule, to entry: JSONValue) -> JSONValue {
        var compiled: Regex<AnyRegexOutput>?
        if case .replaceMatches(let pattern, _) = rule.action {
            if patterns[pattern] == nil { patterns[pattern] = try? Regex(pattern) }
            compiled = patterns[pattern]
        }
        return JSONEditing.transform(entry, at: rule.entryPath[...]) { value in
            switch rule.action {
            case .remove:
                return nil
            case .replace(let replacement):
                return .string(replacement)
            case .replaceMatches(_, let replacement):
                guard case .string(let text) = value, let compiled else { return value }
                return .string(text.replacing(compiled, with: replacement))
            case .alias(let prefix):
                return .string(placeholders.placeholder(for: value.stringValue ?? value.compactString, kind: prefix))
            }
        } ?? entry
    }

    // MARK: Whole-value passes

    /// Replaces every string value that is a known volatile value (tokens, ids, message names).
    func substituted(_ value: JSONValue) -> JSONValue {
        let substitutions = placeholders.substitutions
        guard !substitutions.isEmpty else { return value }
        return JSONEditing.mapStrings(value) { text in
            if let whole = substitutions[text] { return whole }
            // Expo's error texts quote the token (`"ExponentPushToken[…]" is not a registered
            // push notification recipient`); an Expo token is unmistakable, so it is replaced
            // inside text too.
            guard text.contains("PushToken[") else { return text }
            var replaced = text
            for (token, alias) in substitutions where token.contains("PushToken[") && replaced.contains(token) {
                replaced = replaced.replacing(token, with: alias)
            }
            return replaced
        }
    }

    static func redactingJWTs(_ value: JSONValue) -> JSONValue {
        JSONEditing.mapStrings(value) { looksLikeJWT($0) ? "<jwt>" : $0 }
    }

    /// Three Base64URL segments, the first starting with `eyJ` (the encoding of `{"`).
    static func looksLikeJWT(_ text: String) -> Bool {
        guard text.hasPrefix("eyJ") else { return false }
        let segments = text.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, !segments[0].isEmpty, !segments[1].isEmpty else { return false }
        return segments.allSatisfy { segment in
            segment.utf8.allSatisfy { byte in
                (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "=")
            }
        }
    }

    /// Object members sorted by name at every level (duplicates keep their relative order).
    static func sortedMembers(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            .object(JSONObject(object.sortedMembers.map { (key: $0.key, value: sortedMembers($0.value)) }))
        case .array(let elements):
            .array(elements.map(sortedMembers))
        default:
            value
        }
    }
}
