import PushMockCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which endpoint a request goes to, by path (and, for Google's hosts, authority). All services
/// share one port, as they share a process. Decided once per request, before parsing.
enum EndpointID: Hashable {
    /// `/3/device/…`: the APNs provider API.
    case apnsDevice
    /// `/v1/projects/…`, `/projects/…`, and the retired legacy `/fcm/send` and `/batch`: FCM.
    case fcmSend
    /// `/token`, `/oauth2/v4/token`: Google's OAuth2 token endpoint.
    case oauthToken
    /// `/iid/…`: the Instance ID topic API.
    case iidTopics
    /// `/v1/projects/*/registrations/…`: FCM's topic-subscription API.
    case fcmTopicSubscriptions
    /// `/--/api/v2/push/send`: the Expo push service.
    case expoSend
    /// `/--/api/v2/push/getReceipts`: Expo push receipts.
    case expoReceipts
    /// `/_pushmock/…`: the control API (not recorded).
    case control
    /// `GET /` and the inbox's files, on a listener that serves the web inbox (not recorded).
    case inbox
    /// `/metrics`: the gateway's Prometheus series (not recorded).
    case metrics
    /// Anything else: APNs answers 404 BadPath (Google hosts get Google's 404).
    case unrouted

    static let controlPrefix = "/_pushmock/"

    /// `servesInbox`: whether the connection's listener serves the web inbox (the cleartext
    /// listener and `--inbox-port`; never the TLS listeners, where `/` is APNs's `BadPath`).
    ///
    /// `request` is borrowed: an initialiser takes its arguments owned by default, so routing
    /// copied every request whole (a retain and a release per string and buffer) on its way
    /// into the pipeline.
    init(routing request: borrowing HTTPRequestMessage, servesInbox: Bool = false) {
        // The path without its query string, as bytes (no `Substring`).
        var path = request.path
        let end = request.queryMarkOffset ?? path.utf8.count
        let byPath = path.withUTF8 { Self.route(path: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer($0)[..<end])) }
        if let byPath {
            self = byPath
        } else if servesInbox, InboxEndpoint.serves(request) {
            self = .inbox
        } else if let authority = request.authority, Self.isGoogleHost(authority) {
            self = .fcmSend
        } else {
            self = .unrouted
        }
    }

    /// The endpoint a path names, if any, compared as bytes with `memcmp`:
    /// `Substring.hasPrefix` compares Characters, and `utf8.starts(with:)` advanced a
    /// `String.Index` per byte (≈ 0.6 % of the gateway's samples); this runs for every request.
    private static func route(path: UnsafeRawBufferPointer) -> EndpointID? {
        func starts(bytes prefix: UnsafeRawBufferPointer) -> Bool {
            path.count >= prefix.count && (prefix.isEmpty || memcmp(path.baseAddress!, prefix.baseAddress!, prefix.count) == 0)
        }
        func starts(_ prefix: StaticString) -> Bool {
            starts(bytes: UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        }
        func equals(_ other: StaticString) -> Bool { path.count == other.utf8CodeUnitCount && starts(other) }
        // The constants' bytes, in place (native strings are contiguous). Labelled: a literal
        // argument would pick a `String` overload over the `StaticString` one.
        func starts(text prefix: String) -> Bool {
            var prefix = prefix
            return prefix.withUTF8 { starts(bytes: UnsafeRawBufferPointer($0)) }
        }
        func equals(text other: String) -> Bool { path.count == other.utf8.count && starts(text: other) }
        if starts("/3/device") {
            return .apnsDevice
        } else if starts("/v1/") || starts("/projects/") || equals("/fcm/send") || equals("/batch") {
            // Only FCM's requests pay for the second look (bytes, no string made).
            return isTopicSubscriptionPath(path) ? .fcmTopicSubscriptions : .fcmSend
        } else if equals("/token") || equals("/oauth2/v4/token") {
            return .oauthToken
        } else if equals(text: ExpoSendEndpoint.path) {
            return .expoSend
        } else if equals(text: ExpoReceiptsEndpoint.path) {
            return .expoReceipts
        } else if starts("/iid/") {
            return .iidTopics
        } else if starts(text: controlPrefix) || equals("/_pushmock") {
            return .control
        } else if equals(text: MetricsEndpoint.path) {
            return .metrics
        }
        return nil
    }

    /// `[/v1]/projects/{project}/registrations/…`: FCM's topic-subscription API.
    static func isTopicSubscriptionPath(_ path: UnsafeRawBufferPointer) -> Bool {
        func has(_ prefix: StaticString, at offset: Int) -> Bool {
            let count = prefix.utf8CodeUnitCount
            return path.count >= offset + count && memcmp(path.baseAddress! + offset, prefix.utf8Start, count) == 0
        }
        var offset = has("/v1/", at: 0) ? 3 : 0
        guard has("/projects/", at: offset) else { return false }
        offset += "/projects/".utf8.count
        // The project: one non-empty segment.
        guard let slash = path[offset...].firstIndex(of: UInt8(ascii: "/")), slash > offset else { return false }
        return has("/registrations/", at: slash)
    }

    static func isGoogleHost(_ authority: String) -> Bool {
        let host = authority.split(separator: ":").first.map(String.init)?.lowercased() ?? ""
        return host.hasSuffix(".googleapis.com")
    }
}
