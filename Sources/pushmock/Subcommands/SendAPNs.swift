import ArgumentParser
import Foundation
import PushMockAuth
import PushMockCore
import PushMockJSON
import PushMockSender

/// Which APNs `send apns` talks to.
enum APNsTarget: String, ExpressibleByArgument, CaseIterable {
    /// The local `pushmock serve` (default).
    case mock
    /// api.sandbox.push.apple.com.
    case sandbox
    /// api.push.apple.com.
    case production
}

/// `pushmock send apns`.
struct SendAPNs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns",
        abstract: "Send APNs notifications.",
        discussion: """
            Against the local mock nothing else is needed:
              pushmock send apns --token 00fc13ad… --alert "Hi"
            A file of recipients with a template:
              pushmock send apns --recipients people.csv --payload reminder.json
            where reminder.json may contain {{ column }} placeholders.

            Credentials (flag, else environment variable): --key (APNS_KEY: a .p8 path or
            the PEM itself), --key-id (APNS_KEY_ID), --team-id (APNS_TEAM_ID); or
            --cert/--cert-key, or --p12 with --p12-password (APNS_P12_PASSWORD). --topic
            (APNS_TOPIC).
            """
    )

    @OptionGroup var options: SendOptions

    @Option(name: .customLong("environment"), help: "mock (the local pushmock serve), sandbox or production.")
    var target: APNsTarget = .mock

    @Option(name: .customLong("token"), help: "A device token (hex). Repeatable.")
    var tokens: [String] = []

    // Credentials
    @Option(help: "The .p8 signing key (a path, or the PEM text). Env: APNS_KEY.")
    var key: String?
    @Option(name: .customLong("key-id"), help: "The key's ID. Env: APNS_KEY_ID.")
    var keyID: String?
    @Option(name: .customLong("team-id"), help: "Your team ID. Env: APNS_TEAM_ID.")
    var teamID: String?
    @Option(name: .customLong("cert"), help: "Client certificate (PEM) for certificate authentication.")
    var certificate: String?
    @Option(name: .customLong("cert-key"), help: "Its private key (PEM); default: the --cert file.")
    var certificateKey: String?
    @Option(name: .customLong("p12"), help: "Client certificate and key as PKCS#12.")
    var pkcs12: String?
    @Option(name: .customLong("p12-password"), help: "The PKCS#12 passphrase. Env: APNS_P12_PASSWORD.")
    var pkcs12Password: String?

    // Headers
    @Option(help: "apns-topic (the bundle ID). Env: APNS_TOPIC. Default on the mock: its sample topic.")
    var topic: String?
    @Option(name: .customLong("push-type"), help: "apns-push-type (default alert; background for --content-available alone).")
    var pushType: String?
    @Option(help: "apns-priority: 10, 5 or 1.")
    var priority: Int?
    @Option(help: "apns-expiration in seconds since 1970 (0: deliver now or never).")
    var expiration: Int64?
    @Option(name: .customLong("collapse-id"), help: "apns-collapse-id.")
    var collapseID: String?
    @Option(name: .customLong("apns-id"), help: "apns-id (a UUID).")
    var apnsID: String?

    // Payload
    @Option(help: "The payload as a JSON file (may contain {{ placeholders }}).")
    var payload: String?
    @Option(name: .customLong("payload-json"), help: "The payload as JSON text.")
    var payloadJSON: String?
    @Option(help: "aps.alert as plain text.")
    var alert: String?
    @Option(help: "aps.alert.title.")
    var title: String?
    @Option(help: "aps.alert.subtitle.")
    var subtitle: String?
    @Option(help: "aps.alert.body.")
    var body: String?
    @Option(name: .customLong("loc-key"), help: "aps.alert.loc-key.")
    var locKey: String?
    @Option(name: .customLong("loc-arg"), help: "aps.alert.loc-args entry. Repeatable.")
    var locArgs: [String] = []
    @Option(help: "aps.badge.")
    var badge: Int?
    @Option(help: "aps.sound (a file name or default).")
    var sound: String?
    @Option(name: .customLong("critical-sound"), help: "A critical-alert sound name (volume with --critical-volume).")
    var criticalSound: String?
    @Option(name: .customLong("critical-volume"), help: "Critical-alert volume, 0…1.")
    var criticalVolume: Double?
    @Option(name: .customLong("thread-id"), help: "aps.thread-id.")
    var threadID: String?
    @Option(help: "aps.category.")
    var category: String?
    @Flag(name: .customLong("content-available"), help: "aps.content-available: 1.")
    var contentAvailable = false
    @Flag(name: .customLong("mutable-content"), help: "aps.mutable-content: 1.")
    var mutableContent = false
    @Option(name: .customLong("interruption-level"), help: "passive, active, time-sensitive or critical.")
    var interruptionLevel: String?
    @Option(name: .customLong("relevance-score"), help: "aps.relevance-score, 0…1.")
    var relevanceScore: Double?
    @Option(
        name: .customLong("custom"),
        help: "A top-level custom key, KEY=VALUE (VALUE as JSON if it parses, else a string), e.g. link=myapp://x. Repeatable.")
    var custom: [String] = []

    func validate() throws {
        if payload != nil && payloadJSON != nil {
            throw ValidationError("--payload and --payload-json exclude each other.")
        }
        if payload != nil || payloadJSON != nil, hasPayloadFlags {
            throw ValidationError("give the payload as a file/JSON or with flags such as --alert, not both.")
        }
        if !hasPayloadFlags, payload == nil, payloadJSON == nil {
            throw ValidationError("no payload: give --alert, --title/--body, --content-available, … or --payload FILE.")
        }
        if let priority, APNsPriority(rawValue: priority) == nil {
            throw ValidationError("--priority must be 10, 5 or 1.")
        }
        // Apple takes both from 0 to 1; JSON has no infinity, so `1e999` would go out as null.
        if let criticalVolume, !(0...1).contains(criticalVolume) {
            throw ValidationError("--critical-volume must be from 0 to 1, not \(criticalVolume) (--payload-json sends any value).")
        }
        if let relevanceScore, !(0...1).contains(relevanceScore) {
            throw ValidationError("--relevance-score must be from 0 to 1, not \(relevanceScore) (--payload-json sends any value).")
        }
        if let interruptionLevel, APNsPayload.InterruptionLevel(rawValue: interruptionLevel) == nil {
            throw ValidationError("--interruption-level must be passive, active, time-sensitive or critical.")
        }
        if let pushType, APNsPushType(rawValue: pushType) == nil {
            throw ValidationError(
                "--push-type \(pushType) is not an APNs push type (\(APNsPushType.all.map(\.rawValue).joined(separator: ", "))).")
        }
        if tokens.isEmpty, options.recipientsFile == nil {
            throw ValidationError("no recipients: give --token HEX or --recipients FILE.")
        }
    }

    private var hasPayloadFlags: Bool {
        alert != nil || title != nil || subtitle != nil || body != nil || locKey != nil || badge != nil || sound != nil
            || criticalSound != nil || threadID != nil || category != nil || contentAvailable || mutableContent
            || interruptionLevel != nil || relevanceScore != nil || !custom.isEmpty
    }

    func run() async throws {
        try await SendErrors.reporting { try await send() }
    }

    private func send() async throws {
        // The command line's own files first: their mistakes are usage errors wherever it sends.
        var recipients = tokens.map { Recipient(token: $0) }
        recipients += try options.fileRecipients()
        var configuration = try senderConfiguration()
        configuration.connection = options.connectionConfiguration
        configuration.retry = options.retryPolicy
        let template = try payloadTemplate()
        let variables = try options.globalVariables()
        for recipient in recipients where recipient.token == nil {
            throw ValidationError("line \(recipient.line): APNs recipients need a token (topics and conditions are FCM's).")
        }
        let notifications = try render(template, for: recipients, variables: variables)
        let label = target == .mock ? "\(configuration.server) (local mock)" : configuration.server.description
        try await SendRun(options: options, platform: .apns, target: label).run(
            items: notifications,
            sender: try APNsSender(configuration: configuration),
            shutdown: { await $0.shutdown() },
            send: { sender, notifications, onResult in await sender.send(contentsOf: notifications, onResult: onResult) }
        )
    }

    /// The payload as a template (placeholders allowed anywhere in strings).
    private func payloadTemplate() throws -> NotificationTemplate {
        try loadTemplate(file: payload, fileFlag: "--payload", json: payloadJSON) { try builtPayload().jsonValue }
    }

    private func builtPayload() throws -> APNsPayload {
        var payload = APNsPayload()
        if let alert {
            payload.alert = .text(alert)
        }
        if title != nil || subtitle != nil || body != nil || locKey != nil {
            var fields = APNsPayload.Alert(title: title, subtitle: subtitle, body: body ?? alert)
            fields.locKey = locKey
            fields.locArgs = locArgs.isEmpty ? nil : locArgs
            payload.alert = fields
        }
        payload.badge = badge
        if let criticalSound {
            payload.sound = .critical(name: criticalSound, volume: criticalVolume)
        } else if let sound {
            payload.sound = .named(sound)
        }
        payload.threadID = threadID
        payload.category = category
        payload.contentAvailable = contentAvailable
        payload.mutableContent = mutableContent
        payload.interruptionLevel = interruptionLevel.flatMap(APNsPayload.InterruptionLevel.init(rawValue:))
        payload.relevanceScore = relevanceScore
        for entry in custom {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
                throw ValidationError("--custom \(entry): expected KEY=VALUE.")
            }
            let key = String(entry[..<equals])
            let text = String(entry[entry.index(after: equals)...])
            payload.custom[key] = (try? JSONValue(parsing: text)) ?? .string(text)
        }
        return payload
    }

    /// One notification per recipient; every missing template variable is reported before
    /// anything is sent.
    private func render(
        _ template: NotificationTemplate,
        for recipients: [Recipient],
        variables: JSONObject
    ) throws -> [APNsNotification] {
        try checkTemplateVariables(template, for: recipients, variables: variables)
        let constant = template.hasPlaceholders ? nil : try template.renderBytes([:])
        let pushType = pushType.flatMap(APNsPushType.init(rawValue:))
        let suggested: APNsPushType? =
            contentAvailable && alert == nil && title == nil && body == nil && badge == nil && sound == nil ? .background : nil
        return try recipients.map { recipient in
            let bytes = try constant ?? template.renderBytes(Self.merge(variables, recipient.data))
            return APNsNotification(
                deviceToken: recipient.token ?? "",
                payloadJSON: bytes,
                topic: nil,
                pushType: pushType ?? suggested,
                priority: priority.flatMap(APNsPriority.init(rawValue:)),
                expiration: expiration.map(APNsNotification.Expiration.init(secondsSince1970:)),
                collapseID: collapseID,
                apnsID: apnsID
            )
        }
    }

    static func merge(_ base: JSONObject, _ row: JSONObject) -> JSONObject {
        var merged = base
        for member in row.members { merged[member.key] = member.value }
        return merged
    }

    /// Where to and how to authenticate.
    private func senderConfiguration() throws -> APNsSenderConfiguration {
        let authentication = try explicitAuthentication()
        switch target {
        case .mock:
            let mock: LocalPushMock
            do {
                mock = try LocalPushMock(
                    certificatesDirectory: options.certificatesDirectory, readyFile: options.effectiveReadyFile, url: options.url)
            } catch {
                throw ValidationError(error.message)
            }
            var configuration = try mock.apnsConfiguration()
            if let authentication {
                // Your own key or certificate on the mock: no sample topic either.
                configuration.authentication = authentication
                configuration.defaultTopic = nil
            }
            if let caPath = options.caPath { configuration.trustRoots = .file(caPath) }
            if let explicit = topic ?? Environment.value("APNS_TOPIC") { configuration.defaultTopic = explicit }
            return configuration
        case .sandbox, .production:
            guard let authentication else {
                throw ValidationError(
                    "--environment \(target.rawValue) needs credentials: --key/--key-id/--team-id, --cert or --p12 (or APNS_KEY, APNS_KEY_ID, APNS_TEAM_ID)."
                )
            }
            let environment: APNsEnvironment = target == .sandbox ? .sandbox : .production
            let server =
                try options.url.map { try APNsServer.custom(url: $0, environment: environment) }
                ?? (target == .sandbox ? .sandbox : .production)
            return APNsSenderConfiguration(
                server: server,
                authentication: authentication,
                trustRoots: options.caPath.map(TrustRoots.file) ?? .system,
                defaultTopic: topic ?? Environment.value("APNS_TOPIC")
            )
        }
    }

    /// Credentials named by flags or the environment, if any.
    private func explicitAuthentication() throws -> APNsAuthentication? {
        if let pkcs12 {
            guard let password = pkcs12Password ?? Environment.value("APNS_P12_PASSWORD") else {
                throw ValidationError("--p12 needs --p12-password (or APNS_P12_PASSWORD).")
            }
            return .certificate(try ClientIdentity.pkcs12(path: pkcs12, passphrase: password))
        }
        if let certificate {
            return .certificate(try ClientIdentity.pemFiles(certificate: certificate, privateKey: certificateKey ?? certificate))
        }
        guard let key = key ?? Environment.value("APNS_KEY") else { return nil }
        guard let keyID = keyID ?? Environment.value("APNS_KEY_ID"), let teamID = teamID ?? Environment.value("APNS_TEAM_ID") else {
            throw ValidationError("a signing key needs --key-id and --team-id (or APNS_KEY_ID and APNS_TEAM_ID).")
        }
        let pem = try Environment.contents(ofInlineOrPath: key, inlinePrefix: "-----BEGIN")
        do {
            return .token(try APNsSigningKey(pem: pem, keyID: keyID, teamID: teamID))
        } catch {
            throw SenderError(
                .invalidCredentials,
                "\(key.hasPrefix("-----BEGIN") ? "APNS_KEY" : key) is not a P-256 private key (.p8): \(readable: error)")
        }
    }
}
