public import Foundation
public import PushMockCore

/// The REST form: query items (`platform=apns&where=$.aps.alert.title=Hi`).
extension RecordingQuery {
    /// The query item names this type reads (others are left to the caller: `limit`, `after`…).
    public static let queryItemNames: Set<String> = [
        "platform", "token", "topic", "project", "namespace", "status", "reason", "pushType", "priority",
        "environment", "collapseId", "messageId", "since", "until", "where", "text",
    ]

    /// Parses query items; unknown names are ignored (see ``queryItemNames``).
    ///
    /// `since` and `until` take what ``TimeText`` reads: ISO 8601, milliseconds (any number,
    /// signed or not, within years 1–9999), `now`, `-2h`, `+5m` or a time of day. The relative
    /// forms are resolved once, here, against `now` (the
    /// gateway passes its own clock, which may be virtual; the default is the system clock) and
    /// `timeZone`.
    public init(
        queryItems: [(name: String, value: String)],
        now: @autoclosure () -> Timestamp = SystemClock().now(),
        timeZone: TimeZone = .current
    ) throws(QueryError) {
        self.init()
        for (name, value) in queryItems {
            switch name {
            case "platform":
                guard let parsed = Platform(rawValue: value) else {
                    throw QueryError("platform \(value): expected \(Platform.expectedValues)")
                }
                platform = parsed
            case "token": token = Glob(value)
            case "topic": topic = Glob(value)
            case "project": project = Glob(value)
            case "namespace": namespace = value
            case "status":
                guard let filter = StatusFilter(value) else { throw QueryError("status=\(value): a number or a class such as 4xx") }
                status = filter
            case "reason": reason = value
            case "pushType": pushType = value
            case "priority":
                guard let number = Int(value) else { throw QueryError("priority=\(value): a number (10, 5, 1)") }
                priority = number
            case "environment": environment = value
            case "collapseId": collapseID = value
            case "messageId": messageID = value
            case "since", "until":
                let time: Timestamp
                do {
                    time = try TimeText.resolve(
                        value, now: TimeText.needsClock(value) ? now() : Timestamp(millisecondsSince1970: 0), timeZone: timeZone)
                } catch  where error.kind == .outOfRange {
                    throw QueryError("\(name)=\(value): a time must be \(InputLimits.timestampRangeText)")
                } catch {
                    throw QueryError("\(name)=\(value): ISO 8601 (2026-11-21T10:00:00Z), milliseconds, now, -2h, +5m or 10:02")
                }
                if name == "since" {
                    since = time
                } else {
                    until = time
                }
            case "where": payload.append(try PayloadPredicate(parsing: value))
            // An empty search box means no condition, not "matches nothing".
            case "text": text = TextSearch(value)
            default: continue
            }
        }
    }

    /// The query as REST query items, in a fixed order.
    public var queryItems: [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        if let platform { items.append(("platform", platform.rawValue)) }
        if let namespace { items.append(("namespace", namespace)) }
        if let token { items.append(("token", token.pattern)) }
        if let topic { items.append(("topic", topic.pattern)) }
        if let project { items.append(("project", project.pattern)) }
        if let status { items.append(("status", status.description)) }
        if let reason { items.append(("reason", reason)) }
        if let pushType { items.append(("pushType", pushType)) }
        if let priority { items.append(("priority", String(priority))) }
        if let environment { items.append(("environment", environment)) }
        if let collapseID { items.append(("collapseId", collapseID)) }
        if let messageID { items.append(("messageId", messageID)) }
        if let since { items.append(("since", since.description)) }
        if let until { items.append(("until", until.description)) }
        for predicate in payload { items.append(("where", predicate.description)) }
        if let text { items.append(("text", text.text)) }
        return items
    }
}
