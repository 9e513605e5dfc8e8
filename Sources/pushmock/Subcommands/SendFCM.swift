import ArgumentParser
import Foundation
import PushMockAuth
import PushMockCore
import PushMockJSON
import PushMockSender

/// Which FCM `send fcm` talks to.
enum FCMTarget: String, ExpressibleByArgument, CaseIterable {
    /// The local `pushmock serve` (default).
    case mock
    /// fcm.googleapis.com.
    case production
}

/// `pushmock send fcm`.
struct SendFCM: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm",
        abstract: "Send FCM HTTP v1 messages.",
        discussion: """
            Against the local mock nothing else is needed:
              pushmock send fcm --topic news --title "Hi" --body "There"
            A file of recipients with a template:
              pushmock send fcm --recipients devices.jsonl --message reminder.json
            where reminder.json is a Message (without a target, or the target is replaced)
            that may contain {{ placeholders }}.

            Credentials: --service-account (else GOOGLE_APPLICATION_CREDENTIALS, a path, or
            FCM_SERVICE_ACCOUNT, a path or the JSON itself).
            """
    )

    @OptionGroup var options: SendOptions

    @Option(name: .customLong("environment"), help: "mock (the local pushmock serve) or production (fcm.googleapis.com).")
    var target: FCMTarget = .mock

    @Option(name: .customLong("token"), help: "A registration token. Repeatable.")
    var tokens: [String] = []
    @Option(name: .customLong("topic"), help: "A topic. Repeatable.")
    var topics: [String] = []
    @Option(name: .customLong("condition"), help: "A topic condition, e.g. \"'a' in topics && 'b' in topics\". Repeatable.")
    var conditions: [String] = []

    @Option(
        name: .customLong("service-account"), help: "Service-account JSON file. Env: GOOGLE_APPLICATION_CREDENTIALS or FCM_SERVICE_ACCOUNT."
    )
    var serviceAccount: String?
    @Option(help: "Project ID (default: the service account's).")
    var project: String?

    @Option(help: "The Message as a JSON file (may contain {{ placeholders }}).")
    var message: String?
    @Option(name: .customLong("message-json"), help: "The Message as JSON text.")
    var messageJSON: String?
    @Option(help: "notification.title.")
    var title: String?
    @Option(help: "notification.body.")
    var body: String?
    @Option(help: "notification.image (HTTPS URL).")
    var image: String?
    @Option(name: .customLong("data"), help: "A data entry KEY=VALUE. Repeatable.")
    var data: [String] = []
    @Option(name: .customLong("android-priority"), help: "android.priority: normal or high.")
    var androidPriority: String?
    @Option(help: "android.ttl in seconds.")
    var ttl: Int?
    @Option(name: .customLong("collapse-key"), help: "android.collapse_key.")
    var collapseKey: String?
    @Option(name: .customLong("analytics-label"), help: "fcm_options.analytics_label.")
    var analyticsLabel: String?
    @Flag(name: .customLong("validate-only"), help: "validate_only: FCM checks the message and delivers nothing.")
    var validateOnly = false

    func validate() throws {
        if message != nil && messageJSON != nil {
            throw ValidationError("--message and --message-json exclude each other.")
        }
        let flags =
            title != nil || body != nil || image != nil || !data.isEmpty || androidPriority != nil || ttl != nil
            || collapseKey != nil || analyticsLabel != nil
        if message != nil || messageJSON != nil, flags {
            throw ValidationError("give the message as a file/JSON or with flags such as --title, not both.")
        }
        if let androidPriority, !["normal", "high"].contains(androidPriority) {
            throw ValidationError("--android-priority must be normal or high.")
        }
        if tokens.isEmpty, topics.isEmpty, conditions.isEmpty, options.recipientsFile == nil, message == nil, messageJSON == nil {
            throw ValidationError("no recipients: give --token, --topic, --condition or --recipients FILE.")
        }
    }

    func run() async throws {
        try await SendErrors.reporting { try await send() }
    }

    private func send() async throws {
        // The command line's own files first: their mistakes are usage errors wherever it sends.
        var recipients =
            tokens.map { Recipient(token: $0) } + topics.map { Recipient(topic: $0) } + conditions.map { Recipient(condition: $0) }
        recipients += try options.fileRecipients()
        var configuration = try senderConfiguration()
        configuration.connection = options.connectionConfiguration
        configuration.retry = options.retryPolicy
        configuration.validateOnly = validateOnly
        let template = try messageTemplate()
        let variables = try options.globalVariables()
        let messages = try render(template, for: recipients, variables: variables)
        let target =
            "\(configuration.server) project \(configuration.effectiveProjectID)\(self.target == .mock ? " (local mock)" : "")\(validateOnly ? " (validate_only)" : "")"
        try await SendRun(options: options, platform: .fcm, target: target).run(
            items: messages,
            sender: try FCMSender(configuration: configuration),
            shutdown: { await $0.shutdown() },
            send: { sender, messages, onResult in await sender.send(contentsOf: messages, onResult: onResult) }
        )
    }

    private func messageTemplate() throws -> NotificationTemplate {
        try loadTemplate(file: message, fileFlag: "--message", json: messageJSON) { try builtMessage() }
    }

    /// The message the flags describe (its placeholder target is replaced per recipient).
    private func builtMessage() throws -> JSONValue {
        var built = FCMPushMessage(target: .topic("placeholder"))
        if title != nil || body != nil || image != nil {
            built.notification = .init(title: title, body: body, image: image)
        }
        if !data.isEmpty {
            var entries: [String: String] = [:]
            for entry in data {
                guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
                    throw ValidationError("--data \(entry): expected KEY=VALUE.")
                }
                entries[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
            }
            built.data = entries
        }
        if androidPriority != nil || ttl != nil || collapseKey != nil {
            built.android = .init(
                collapseKey: collapseKey,
                priority: androidPriority == "high" ? .high : androidPriority == "normal" ? .normal : nil,
                ttl: ttl.map { .seconds($0) }
            )
        }
        built.analyticsLabel = analyticsLabel
        guard case .object(var object) = built.jsonValue else { throw ValidationError("internal: message is not an object") }
        object["topic"] = nil
        return .object(object)
    }

    /// One message per recipient (or the template's own target when there are none); missing
    /// template variables are all reported before anything is sent.
    private func render(_ template: NotificationTemplate, for recipients: [Recipient], variables: JSONObject) throws -> [FCMPushMessage] {
        let rows = recipients.isEmpty ? [Recipient(data: JSONObject())] : recipients
        try checkTemplateVariables(template, for: rows, variables: variables)
        return try rows.map { recipient in
            do {
                guard case .object(var object) = try template.render(SendAPNs.merge(variables, recipient.data)) else {
                    throw ValidationError("the message template must be a JSON object")
                }
                if recipients.isEmpty {
                    return try FCMPushMessage(json: .object(object))
                }
                object["token"] = nil
                object["topic"] = nil
                object["condition"] = nil
                if let token = recipient.token {
                    object["token"] = .string(token)
                } else if let topic = recipient.topic {
                    object["topic"] = .string(FCMPushMessage.Target.topic(topic).value)
                } else if let condition = recipient.condition {
                    object["condition"] = .string(condition)
                }
                return try FCMPushMessage(json: .object(object))
            } catch let error as SenderError {
                throw ValidationError(error.message)
            }
        }
    }

    private func senderConfiguration() throws -> FCMSenderConfiguration {
        let account = try explicitServiceAccount()
        var configuration: FCMSenderConfiguration
        switch target {
        case .mock:
            let mock: LocalPushMock
            do {
                mock = try LocalPushMock(
                    certificatesDirectory: options.certificatesDirectory, readyFile: options.effectiveReadyFile, url: options.url)
            } catch {
                throw ValidationError(error.message)
            }
            configuration = try mock.fcmConfiguration()
            if let account { configuration.serviceAccount = account }
            if let caPath = options.caPath { configuration.trustRoots = .file(caPath) }
        case .production:
            guard let account else {
                throw ValidationError("--environment production needs --service-account (or GOOGLE_APPLICATION_CREDENTIALS).")
            }
            configuration = FCMSenderConfiguration(
                serviceAccount: account,
                server: try options.url.map { try SenderEndpoint(url: $0) } ?? FCMSenderConfiguration.production,
                trustRoots: options.caPath.map(TrustRoots.file) ?? .system
            )
        }
        configuration.projectID = project
        return configuration
    }

    private func explicitServiceAccount() throws -> ServiceAccountJSON? {
        guard let source = serviceAccount ?? Environment.value("GOOGLE_APPLICATION_CREDENTIALS") ?? Environment.value("FCM_SERVICE_ACCOUNT")
        else {
            return nil
        }
        let text = try Environment.contents(ofInlineOrPath: source, inlinePrefix: "{")
        do {
            return try ServiceAccountJSON.decode(from: Data(text.utf8))
        } catch {
            throw SenderError(
                .invalidCredentials,
                "\(source.hasPrefix("{") ? "the service account JSON" : source) is not a service-account JSON: \(readable: error)")
        }
    }
}
