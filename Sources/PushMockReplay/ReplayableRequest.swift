import Foundation
import PushMockCore
public import PushMockRecording
public import PushMockSender

/// Which recorded exchanges can be sent again, and how: APNs `POST /3/device/<token>`,
/// FCM `POST …/projects/<project>/messages:send` and Expo `POST /--/api/v2/push/send`. Token
/// requests, IID calls, Expo receipt requests (their ids exist only where they were issued)
/// and control requests are not replayed (the senders obtain their own access tokens).
public enum ReplayableRequest {
    /// Request headers never copied to the new request: credentials (the sender signs with
    /// its own), and fields the HTTP/2 layer owns.
    static let droppedHeaders: Set<String> = [
        "authorization", "content-length", "host", "connection", "te", "transfer-encoding",
        "keep-alive", "proxy-connection", "upgrade",
    ]

    /// Whether `record` is a send request replay knows how to repeat.
    public static func isReplayable(_ record: ExchangeRecord) -> Bool {
        guard record.request.method == "POST" else { return false }
        let path = record.request.path
        switch record.platform {
        case .apns: return path.hasPrefix("/3/device/")
        case .fcm: return projectRange(in: path) != nil
        case .expo: return path == expoSendPath
        default: return false
        }
    }

    /// The request to send: recorded path (the FCM project replaced by `fcmProject` when
    /// given), recorded headers in order minus ``droppedHeaders`` and pseudo-headers, and the
    /// recorded body bytes unchanged.
    public static func wireRequest(for record: ExchangeRecord, fcmProject: String? = nil) -> WireRequest {
        var path = record.request.path
        if record.platform == .fcm, let fcmProject, let range = projectRange(in: path) {
            path.replaceSubrange(range, with: fcmProject)
        }
        var headers = HTTPHeaderList()
        for field in record.request.headers {
            let name = field.name.lowercased()
            guard !name.hasPrefix(":"), !droppedHeaders.contains(name) else { continue }
            headers.append(name: field.name, value: field.value)
        }
        let resolved = record.notification?.resolvedTokens ?? []
        let recipient =
            record.notification?.token
            ?? (resolved.count > 1 ? "\(resolved[0]) +\(resolved.count - 1)" : resolved.first)
            ?? record.notification?.topic.map { "topic:\($0)" }
            ?? record.notification?.condition.map { "condition:\($0)" }
            ?? path
        return WireRequest(path: path, headers: headers, body: record.request.body.bytes, recipient: recipient)
    }

    /// The Expo push service's send path.
    static let expoSendPath = "/--/api/v2/push/send"

    /// The project segment of `…/projects/<project>/messages:send`.
    static func projectRange(in path: String) -> Range<String.Index>? {
        guard let start = path.range(of: "/projects/"), let end = path.range(of: "/messages:send", range: start.upperBound..<path.endIndex),
            start.upperBound < end.lowerBound
        else { return nil }
        let project = path[start.upperBound..<end.lowerBound]
        guard !project.contains("/") else { return nil }
        return start.upperBound..<end.lowerBound
    }
}
