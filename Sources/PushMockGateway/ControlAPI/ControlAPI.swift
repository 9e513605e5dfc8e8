import Foundation
import NIOPosix
@_spi(Locking) package import PushMockCore
package import PushMockJSON
import PushMockQuery
import PushMockRecording
import PushMockSimulation
import Synchronization

/// The REST control API under `/_pushmock/` on every listener (HTTP/1.1 and HTTP/2, TLS and
/// cleartext). It is not part of Apple's or Google's API and is never recorded. Documented in
/// `docs/control-api.md`.
///
/// | Method | Path | |
/// |---|---|---|
/// | GET | /_pushmock/health | `{"status":"ok"}` |
/// | GET | /_pushmock/info | listeners, CA path, sample key, journal (like `--ready-file`) |
/// | GET | /_pushmock/recordings | newest first; `limit`, `after`, `platform`, `token`, `topic`, `status`, `reason` |
/// | GET | /_pushmock/recordings/{seq} | one record |
/// | GET | /_pushmock/recordings/stream | Server-Sent Events of new records (the query items) |
/// | GET, POST, DELETE | /_pushmock/categories | notification categories with actions (the inbox's previews) |
/// | DELETE | /_pushmock/recordings | clear the in-memory store |
/// | GET, POST | /_pushmock/apns/keys | list / register a key (``APNsKeyDefinition``) |
/// | DELETE | /_pushmock/apns/keys/{keyId} | forget a key |
/// | GET, POST | /_pushmock/apns/teams | list / declare a team's apps (``APNsTeamDefinition``) |
/// | GET, POST | /_pushmock/apns/tokens | list / register device tokens (one or an array of ``APNsDeviceDefinition``) |
/// | GET, DELETE | /_pushmock/apns/tokens/{token} | show / forget a token |
/// | POST | /_pushmock/apns/certificate-authorities | trust a client-certificate CA (`{"pem": …}`) for new connections |
/// | GET, POST | /_pushmock/fcm/service-accounts | list / trust a service account (Google's JSON or ``ServiceAccountDefinition``) |
/// | GET, POST | /_pushmock/fcm/tokens | list / register registration tokens (``FCMTokenDefinition``) |
/// | GET, DELETE | /_pushmock/fcm/tokens/{token} | show / forget a token |
/// | GET | /_pushmock/fcm/topics | topic → subscribed tokens (`project` filter) |
/// | POST | /_pushmock/fcm/access-tokens/revoke | forget every issued access token (SDKs then refresh) |
/// | GET, POST | /_pushmock/expo/tokens | list (`project` filter) / register Expo push tokens (``ExpoTokenDefinition``) |
/// | GET, PATCH, DELETE | /_pushmock/expo/tokens/{token} | show / change (``ExpoTokenPatch``) / forget a token |
/// | POST | /_pushmock/expo/tokens/{token}/rotate | replace a token (`{"newToken"?, "at"?}`) |
/// | GET, POST | /_pushmock/expo/projects | list / declare projects (``ExpoProjectDefinition``; access tokens) |
/// | GET, DELETE | /_pushmock/expo/projects/{name} | show / forget a project |
/// | GET, POST, DELETE | /_pushmock/faults | list (with match/fire counts) / add one or many ``FaultRule``s / remove all |
/// | DELETE | /_pushmock/faults/{id} | remove one rule |
/// | GET | /_pushmock/faults/presets | the presets |
/// | POST | /_pushmock/faults/presets/{name} | add a preset's rules (body: its parameters) |
/// | GET, POST | /_pushmock/webhooks | list (with attempt history) / add webhooks on receipt (``WebhookDefinition``) |
/// | GET, DELETE | /_pushmock/webhooks/{id} | show / remove a webhook |
///
/// Installed extensions (``ControlAPIExtension``) add whole areas; `PushMockCheckAPI` adds
///
/// | Method | Path | |
/// |---|---|---|
/// | POST | /_pushmock/expectations | judge expectations (200 / 417) |
/// | POST | /_pushmock/checks/links | deep links against a route table (200 / 417) |
/// | POST | /_pushmock/checks/policy | quiet hours, frequency caps, priorities (200 / 417) |
package struct ControlAPI: Sendable {
    let state: GatewayState
    /// Areas added by other targets, by their first path segment.
    private let extensions: [String: any ControlAPIExtension]
    /// What the extensions may use, files named in request bodies included.
    let context: ControlAPIContext
    /// Called after a CA was added so the TLS listener can rebuild its context.
    let onCertificateAuthoritiesChanged: @Sendable () throws -> Void
    /// Host, origin and token rules (``ControlAccess``).
    let access: ControlAccess
    /// The address the listeners are bound to (an accepted `Host` besides loopback names).
    let boundHost: String

    init(
        state: GatewayState,
        extensions: [any ControlAPIExtension] = [],
        files: ControlFileAccess,
        blockingPool: NIOThreadPool = .singleton,
        access: ControlAccess = ControlAccess(),
        boundHost: String = "127.0.0.1",
        onCertificateAuthoritiesChanged: @escaping @Sendable () throws -> Void
    ) {
        self.state = state
        self.access = access
        self.boundHost = boundHost
        var byArea: [String: any ControlAPIExtension] = [:]
        for installed in extensions {
            // The first extension to claim an area keeps it; built-in areas stay built in.
            for area in installed.areas where !Self.builtInAreas.contains(area) && byArea[area] == nil {
                byArea[area] = installed
            }
        }
        self.extensions = byArea
        self.context = ControlAPIContext(state: state, files: files, blockingPool: blockingPool)
        self.onCertificateAuthoritiesChanged = onCertificateAuthoritiesChanged
    }

    /// A control answer: now, or — for requests that wait (long polls, expectations with
    /// `within`) — later, computed off the event loop.
    enum Reply {
        case now(HTTPReply)
        case later(@Sendable () async -> HTTPReply)
    }

    func handle(_ request: HTTPRequestMessage) -> Reply {
        if let refusal = access.refusal(of: request, boundHost: boundHost) {
            return .now(.respond(Self.errorResponse(refusal)))
        }
        guard !request.isBodyTruncated else {
            // Never act on the prefix of a body.
            return .now(.respond(Self.json(status: 413, ["error": JSONValue("the request body exceeds \(request.body.count) bytes")])))
        }
        let path = request.pathWithoutQuery.dropFirst(EndpointID.controlPrefix.count)
        // Split, then decode: tokens carry `:` and brackets, Expo project names a slash, and
        // clients percent-encode them (`%3A`, `%5B`, `%2F`) in a path segment.
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map { String($0).removingPercentEncoding ?? String($0) }
        let items = Self.parseQueryItems(request.query)
        let control = ControlRequest(method: request.method, segments: segments, queryItems: items, body: request.body)
        do {
            // A documented path with another method is 405 before anything reads its
            // parameters or body: the method is what is wrong, not the token in the path.
            if let allowed = ControlRouteTable.allowedMethods(for: segments), !allowed.contains(request.method) {
                throw ControlAPIError(
                    405,
                    "\(request.method) is not supported on /_pushmock/\(segments.joined(separator: "/")); \(allowed.joined(separator: ", "))"
                )
            }
            if let area = segments.first, let installed = extensions[area] {
                switch try installed.handle(control, context: context) {
                case .now(let response):
                    return .now(.respond(response))
                case .later(let compute):
                    return .later {
                        do {
                            return .respond(try await compute())
                        } catch {
                            return .respond(Self.errorResponse(error, body: control.body))
                        }
                    }
                }
            }
            if let streaming = try streamingRoute(control, lastEventID: request.headers.first(named: "last-event-id")) {
                return .now(HTTPReply(.stream(streaming)))
            }
            if let waiting = try waitingRoute(control) {
                return .later {
                    do {
                        return .respond(try await waiting())
                    } catch {
                        return .respond(Self.errorResponse(error, body: control.body))
                    }
                }
            }
            return .now(.respond(try route(control)))
        } catch {
            return .now(.respond(Self.withAllow(Self.errorResponse(error, body: control.body), for: segments)))
        }
    }

    /// A 405 names the methods the path takes (`Allow`, RFC 9110 §15.5.6).
    static func withAllow(_ response: HTTPResponseMessage, for segments: [String]) -> HTTPResponseMessage {
        guard response.status == 405, let methods = ControlRouteTable.allowedMethods(for: segments), !methods.isEmpty else {
            return response
        }
        var response = response
        response.headers.append(name: "allow", value: methods.joined(separator: ", "))
        return response
    }

    /// The `{"error": …}` answer for a failure; `body` is the request's, for naming a number
    /// Foundation's decoder could not hold.
    package static func errorResponse(_ error: any Error, body: [UInt8] = []) -> HTTPResponseMessage {
        switch error {
        case let error as ControlAPIError: return json(status: error.status, ["error": JSONValue(error.message)])
        case let full as RegistryFull:
            return json(
                status: 507,
                [
                    "error": JSONValue(full.description), "registry": JSONValue(full.registry.words), "limit": JSONValue(full.limit),
                    "limitName": JSONValue(full.registry.limitName),
                ])
        case let error as DefinitionError: return json(status: 400, ["error": JSONValue(error.description)])
        case let error as QueryError: return json(status: 400, ["error": JSONValue(error.description)])
        case let error as DecodingError:
            return json(status: 400, ["error": JSONValue(OutOfRangeNumber.describe(error, body: body) ?? error.readableDescription)])
        // A body (or a JSON path in it) that does not parse is the client's mistake, wherever
        // a route reads it.
        case let error as JSONSyntaxError: return json(status: 400, ["error": JSONValue("the body is not JSON: \(error)")])
        case let error as JSONPathError: return json(status: 400, ["error": JSONValue(error.description)])
        default: return json(status: 500, ["error": JSONValue("\(error)")])
        }
    }

    private func route(_ request: ControlRequest) throws -> HTTPResponseMessage {
        let method = request.method
        let segments = request.segments
        let response: HTTPResponseMessage?
        switch segments.first {
        case "health" where segments.count == 1 && method == "GET":
            response = Self.json(status: 200, ["status": "ok"])
        case "info" where segments.count == 1 && method == "GET":
            guard let info = state.serverInfo.withLock({ $0 }) else {
                throw ControlAPIError(503, "the gateway is still starting")
            }
            response = try Self.encoded(info)
        case "recordings": response = try recordingRoutes(request)
        case "apns": response = try apnsRoutes(request)
        case "fcm": response = try fcmRoutes(request)
        case "expo": response = try expoRoutes(request)
        case "faults": response = try faultRoutes(request)
        case "clock": response = try clockRoutes(request)
        case "devices": response = try deviceRoutes(request)
        case "categories": response = try categoryRoutes(request)
        case "webhooks": response = try webhookRoutes(request)
        case "users": response = try userRoutes(request)
        case "engagement": response = try engagementRoutes(request)
        default: response = nil
        }
        if let response { return response }
        // A documented path with another method is 405 (with `Allow`); any other path 404.
        if Self.builtInAreas.contains(segments.first ?? ""), let allowed = ControlRouteTable.allowedMethods(for: segments) {
            throw ControlAPIError(
                405, "\(method) is not supported on /_pushmock/\(segments.joined(separator: "/")); \(allowed.joined(separator: ", "))")
        }
        throw ControlAPIError(404, "no control endpoint /_pushmock/\(segments.joined(separator: "/")); see docs/control-api.md")
    }

    /// The first path segments the gateway serves itself.
    static let builtInAreas: Set<String> = [
        "health", "info", "recordings", "apns", "fcm", "expo", "faults", "clock", "devices", "categories", "webhooks", "users",
        "engagement",
    ]

    // MARK: JSON helpers

    /// A small answer such as `{"error": …}` or `{"removed": …}`, written by `JSONWriter`.
    package static func json(status: Int, _ object: JSONObject) -> HTTPResponseMessage {
        rawJSON(status: status, JSONValue.object(object).compactBytes)
    }

    package static func encoded(_ value: some Encodable, status: Int = 200, key: String? = nil) throws -> HTTPResponseMessage {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var data = try encoder.encode(value)
        if let key {
            data = Data(#"{"\#(key)":"#.utf8) + data + Data("}".utf8)
        }
        return rawJSON(status: status, Array(data))
    }

    package static func rawJSON(status: Int, _ bytes: [UInt8]) -> HTTPResponseMessage {
        var headers = HTTPHeaderList()
        headers.append(name: "content-type", value: "application/json")
        return HTTPResponseMessage(status: status, headers: headers, body: bytes)
    }

    static func decodeOneOrMany<T: Decodable>(_ body: [UInt8]) throws -> [T] {
        guard !body.isEmpty else { throw ControlAPIError(400, "a JSON body is required") }
        let data = Data(body)
        // The body's first byte says which shape was meant, so a problem in an array's element
        // is reported as that, not as "expected an object".
        let firstByte = body.first { ![UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains($0) }
        let values =
            firstByte == UInt8(ascii: "[") ? try JSONDecoder().decode([T].self, from: data) : [try JSONDecoder().decode(T.self, from: data)]
        if T.self is any PlainDefinition.Type, let plainValues = values as? [any PlainDefinition] {
            try rejectUnknownMembers(body, plainValues)
        }
        return values
    }

    /// One definition (a `PATCH` body): as ``decodeOneOrMany(_:)``, unknown members refused.
    static func decodeDefinition<T: PlainDefinition>(_ type: T.Type, from body: [UInt8]) throws -> T {
        let value = try JSONDecoder().decode(T.self, from: Data(body))
        try rejectUnknownMembers(body, [value])
        return value
    }

    /// A member of a body's object (or of each element of its array) that the decoded value
    /// has no stored property for: synthesized `Decodable` skips it, and a misspelt
    /// `"expireAfterSend": 3` would leave the default in force without a word.
    private static func rejectUnknownMembers(_ body: [UInt8], _ values: [any PlainDefinition]) throws {
        guard let document = try? JSONValue(parsing: body) else { return }
        let objects = document.arrayValue ?? [document]
        for (index, (object, value)) in zip(objects, values).enumerated() {
            guard let unknown = value.firstUnknownMember(in: object) else { continue }
            let element = document.arrayValue == nil ? "" : "[\(index)]: "
            let place = unknown.place.isEmpty ? "" : " at \(unknown.place)"
            throw ControlAPIError(
                400,
                "\(element)unknown member \"\(unknown.member)\" in \(unknown.definitionName)\(place) (expected: \(unknown.known.joined(separator: ", ")))"
            )
        }
    }

    /// Query items in order (names may repeat: `where=…&where=…`).
    static func parseQueryItems(_ query: Substring?) -> [(name: String, value: String)] {
        guard let query else { return [] }
        return query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let rawValue = parts.count > 1 ? String(parts[1]).replacingOccurrences(of: "+", with: " ") : ""
            return (name, rawValue.removingPercentEncoding ?? rawValue)
        }
    }
}

/// One control request, split up.
package struct ControlRequest: Sendable {
    package var method: String
    /// Path segments after `/_pushmock/`.
    package var segments: [String]
    /// Query items in order.
    package var queryItems: [(name: String, value: String)]
    package var body: [UInt8]

    package init(method: String, segments: [String], queryItems: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.segments = segments
        self.queryItems = queryItems
        self.body = body
    }

    /// The last value of each query item.
    package var query: [String: String] {
        Dictionary(queryItems.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
    }

    /// Whether the path is exactly `segments` (`"*"` matches any one segment).
    package func matches(_ method: String, _ pattern: String...) -> Bool {
        guard self.method == method, segments.count == pattern.count else { return false }
        return zip(segments, pattern).allSatisfy { $1 == "*" || $0 == $1 }
    }
}

/// A control API failure with its status, answered as `{"error": message}`.
package struct ControlAPIError: Error, Sendable {
    package var status: Int
    package var message: String

    package init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}
