public import PushMockCore
public import PushMockJSON

/// Lint rules for a direct APNs device push (`POST /3/device/<token>`): things APNs accepts
/// with 200 but devices throttle, drop, ignore or render badly. `docs/lint-rules.md` lists
/// every rule with its source.
///
/// Pure and allocation-light: the payload is parsed once (or not at all, when the caller
/// already holds a ``JSONValue``), messages are built only for rules that fire, and nothing
/// here touches NIO or Foundation. Call it for **accepted** notifications only; the gateway
/// records the findings with the exchange and never changes its response because of them.
///
/// ```swift
/// let findings = APNsLinter.lint(
///     APNsLintInput(headers, topic: resolvedTopic),
///     payload: request.body,
///     now: clock.now(),
///     configuration: lintConfiguration
/// )
/// ```
public enum APNsLinter {
    /// Lints a notification from its raw body bytes. A body that is not JSON is reported as
    /// `apns.payload-not-json`; the header rules still run.
    public static func lint(
        _ input: APNsLintInput,
        payload: some Collection<UInt8>,
        now: Timestamp,
        configuration: LintConfiguration = .standard
    ) -> [LintFinding] {
        var report = LintReport(configuration: configuration)
        var parsed: JSONValue?
        if !payload.isEmpty {
            do {
                parsed = try JSONValue(parsing: payload)
            } catch {
                report.add(
                    .apnsPayloadNotJSON,
                    field: "payload",
                    "The payload is not valid JSON (\(error)); the device has nothing to read."
                )
            }
        }
        lint(input, parsed: parsed, now: now, into: &report)
        return report.findings
    }

    /// Lints a notification whose body the caller already parsed. `nil` means no body.
    public static func lint(
        _ input: APNsLintInput,
        payload: JSONValue?,
        now: Timestamp,
        configuration: LintConfiguration = .standard
    ) -> [LintFinding] {
        var report = LintReport(configuration: configuration)
        lint(input, parsed: payload, now: now, into: &report)
        return report.findings
    }

    /// Push types whose `aps` dictionary these rules understand; the others (voip, mdm,
    /// fileprovider, location, pushtotalk, complication, widgets, controls) carry
    /// app-defined payloads.
    static let apsPushTypes: Set<APNsPushType> = [.alert, .background, .liveactivity]

    static func lint(_ input: APNsLintInput, parsed: JSONValue?, now: Timestamp, into report: inout LintReport) {
        let payloadObject = parsed?.objectValue
        let facts = payloadObject.map(APSFacts.init(payload:))
        let pushType = input.pushType

        // Headers
        if input.pushTypeSent == nil {
            report.add(
                .apnsMissingPushType,
                field: "apns-push-type",
                "apns-push-type is missing (treated as \(pushType)); Apple requires it on watchOS 6+ and recommends it elsewhere, and may delay or drop notifications without it."
            )
        }
        let contentAvailableOnly = facts?.isContentAvailableOnly ?? false
        if input.priority == .immediate, pushType == .background || (pushType == .alert && contentAvailableOnly) {
            let sent = input.prioritySent == nil ? "apns-priority is omitted, which means 10," : "apns-priority is 10"
            let what = pushType == .background ? "a background push" : "a push whose aps holds only content-available"
            report.add(
                .apnsBackgroundHighPriority,
                field: "apns-priority",
                "\(sent) on \(what); Apple says to always use 5 for background pushes (10 is an error), and the system throttles them."
            )
        }
        if let expiration = input.expiration, expiration != 0, expiration < now.secondsSince1970 {
            let hint = expiration < 1_000_000_000 ? " — it looks like a duration, but apns-expiration is a UNIX time in seconds" : ""
            report.add(
                .apnsExpirationInPast,
                field: "apns-expiration",
                "apns-expiration \(expiration) (\(Timestamp(secondsSince1970: expiration))) is already in the past\(hint); APNs will not store the notification for an offline device."
            )
        }
        if let collapseID = input.collapseID, pushType == .background {
            report.add(
                .apnsCollapseIDOnBackground,
                field: "apns-collapse-id",
                "apns-collapse-id \"\(collapseID)\" on a background push has no effect: only displayed notifications are collapsed."
            )
        }
        if input.prioritySent == .prioritizePower, Self.promptPushTypes.contains(pushType) {
            report.add(
                .apnsPriorityOneUserFacing,
                field: "apns-priority",
                "apns-priority 1 on a push of type \(pushType) never wakes the device; it is delivered when the device wakes for something else."
            )
        }

        // Payload
        guard let parsed else { return }
        guard let payloadObject, let facts else {
            report.add(
                .apnsPayloadNotJSON,
                field: "payload",
                "The payload is \(LintText.kind(of: parsed)), not a JSON dictionary; the device has nothing to read."
            )
            return
        }
        guard Self.apsPushTypes.contains(pushType) else { return }
        guard facts.apsIsObject else {
            let actual =
                facts.hasAps
                ? "aps is \(LintText.kind(of: payloadObject["aps"] ?? .null)), not a dictionary" : "The payload has no aps dictionary"
            report.add(
                .apnsApsMissing,
                field: "aps",
                "\(actual); a push of type \(pushType) without it shows nothing and wakes nothing."
            )
            return
        }

        let checks = APSChecks(apsPath: "aps", pushType: pushType, bundleID: input.bundleID, now: now)
        switch pushType {
        case .alert:
            if !facts.hasUserFacingKey {
                let advice =
                    facts.isContentAvailable
                    ? " — a content-available-only payload is a background push (apns-push-type background, priority 5)" : ""
                report.add(
                    .apnsAlertPushWithoutContent,
                    field: "aps",
                    "An alert push whose aps has no alert, badge or sound shows nothing\(advice)."
                )
            }
            checks.checkMutableContentNeedsAlert(facts, into: &report)
            if !facts.isMutableContent, let image = APSChecks.imageURL(in: payloadObject, configuration: report.configuration) {
                report.add(
                    .apnsImageWithoutMutableContent,
                    field: image.path,
                    "\(image.path) is an image URL (\(image.url)) but aps.mutable-content is not 1, so no service extension runs to download and attach it."
                )
            }
        case .background:
            let userFacing = [("alert", facts.alert), ("sound", facts.sound), ("badge", facts.badge)].compactMap {
                $0.1 == nil ? nil : $0.0
            }
            if !userFacing.isEmpty {
                report.add(
                    .apnsBackgroundWithUserContent,
                    field: "aps.\(userFacing[0])",
                    "A background push carries \(LintText.list(userFacing.map { "aps.\($0)" })); background notifications must not contain keys that trigger user interaction."
                )
            }
            if !facts.isContentAvailable {
                report.add(
                    .apnsBackgroundWithoutContentAvailable,
                    field: "aps.content-available",
                    "A background push without aps.content-available: 1 does not wake the app."
                )
            }
            checks.checkMutableContentNeedsAlert(facts, into: &report)
        case .liveactivity:
            checks.checkLiveActivity(facts, into: &report)
        default:
            break
        }
        checks.checkContent(facts, into: &report)
        checks.checkKeys(facts, into: &report)
    }

    /// Push types whose user expects them promptly, so priority 1 (never wake) is suspicious.
    static let promptPushTypes: Set<APNsPushType> = [.alert, .voip, .pushtotalk, .location]
}
