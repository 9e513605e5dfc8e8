import ArgumentParser
import PushMockCore
import PushMockToolkit

/// The query language of `GET /_pushmock/recordings` as flags, shared by every command that
/// selects recordings (`recordings`, `expect`). Each flag maps to one REST query item.
struct QueryOptions: ParsableArguments {
    @Option(help: "apns, fcm, expo, oauth or iid.")
    var platform: Platform?

    @Option(help: "Device, registration or Expo push token (glob: 00fc*); for Expo any recipient of a request.")
    var token: String?

    @Option(help: "APNs topic / bundle id (glob).")
    var topic: String?

    @Option(help: "FCM project id or Expo project @owner/slug (glob).")
    var project: String?

    @Option(help: "Namespace: the x-pushmock-namespace header, else the app (APNs topic or FCM project).")
    var namespace: String?

    @Option(help: "Response status: 200, 410 or a class such as 4xx.")
    var status: String?

    @Option(help: "APNs reason, FCM error status or Expo request error code (BadDeviceToken, UNREGISTERED, TOO_MANY_REQUESTS).")
    var reason: String?

    @Option(name: .customLong("push-type"), help: "apns-push-type: alert, background, liveactivity…")
    var pushType: String?

    @Option(help: "apns-priority (10, 5, 1).")
    var priority: String?

    @Option(help: "development or production.")
    var environment: String?

    @Option(name: .customLong("collapse-id"), help: "apns-collapse-id / FCM collapse key.")
    var collapseID: String?

    @Option(name: .customLong("message-id"), help: "apns-id or FCM message name.")
    var messageID: String?

    // `.unconditional`: a negative value (`-2h`, milliseconds before 1970) is the value, not an option.
    @Option(
        parsing: .unconditional,
        help:
            "Only exchanges at or after this time: ISO 8601, milliseconds, now, -2h, or 10:02 (the gateway's clock; with --journal, this machine's)."
    )
    var since: String?

    @Option(parsing: .unconditional, help: "Only exchanges before this time (as --since).")
    var until: String?

    @Option(help: "Free text, any case: in titles, bodies and other payload strings, token, topic, project, reason or path.")
    var text: String?

    @Option(
        name: [.customLong("json-path"), .customLong("where")],
        help: ArgumentHelp(
            "A payload predicate, repeatable: '$.aps.alert.title=Time for your BPC-157'.",
            discussion:
                "PATH=VALUE (VALUE is JSON when it parses, else a string), PATH!=VALUE, PATH~GLOB, PATH!~GLOB (no match or absent), PATH (present), !PATH (absent); see docs/queries.md."
        )
    )
    var predicates: [String] = []

    /// The flags as REST query items, in the names `RecordingQuery` reads.
    var queryItems: [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        func add(_ name: String, _ value: String?) {
            if let value { items.append((name, value)) }
        }
        add("platform", platform?.rawValue)
        add("token", token)
        add("topic", topic)
        add("project", project)
        add("namespace", namespace)
        add("status", status)
        add("reason", reason)
        add("pushType", pushType)
        add("priority", priority)
        add("environment", environment)
        add("collapseId", collapseID)
        add("messageId", messageID)
        add("since", since)
        add("until", until)
        for predicate in predicates { items.append(("where", predicate)) }
        add("text", text)
        return items
    }

    /// The query, or a usage error naming the bad flag. Relative times (`--since -2h`) are
    /// resolved against `now`: this machine's clock unless the caller read the gateway's.
    func makeQuery(now: Timestamp = SystemClock().now()) throws -> RecordingQuery {
        do {
            return try RecordingQuery(queryItems: queryItems, now: now)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Whether `--since` or `--until` is relative (`-2h`, `now`, `10:02`) and so needs a clock.
    /// Query items sent to a gateway are resolved there; a query built here needs its clock.
    var needsClock: Bool {
        [since, until].contains { $0.map { TimeText.needsClock($0) } ?? false }
    }
}
