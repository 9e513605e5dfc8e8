public import ArgumentParser
import Foundation
import Logging
import PushMockCheckAPI
import PushMockCore
import PushMockGateway
import PushMockSimulation
import PushMockToolkit
import ServiceLifecycle
import UnixSignals

/// `pushmock serve`: runs the gateway until SIGINT/SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the gateway.",
        discussion: """
            With no options: TLS on 127.0.0.1:2197 (ALPN h2 and http/1.1, h2 without ALPN)
            and cleartext on 127.0.0.1:2198 (h2c prior knowledge and HTTP/1.1), a local CA
            and server certificate in certs/, a sample APNs signing key and a sample FCM
            service account that are trusted out of the box, and a journal in
            Recordings/journal.jsonl. Both ports serve APNs, FCM HTTP v1 (with Google's
            OAuth2 token endpoint and IID), the Expo push service and the control API; the
            cleartext port also serves the web inbox. SIGINT/SIGTERM drain connections and
            exit 0.
            """
    )

    @Option(help: "Interface to bind.")
    var host = "127.0.0.1"

    @Option(name: .customLong("tls-port"), help: "TLS port (0 = any free port).")
    var tlsPort = 2197

    @Option(name: .customLong("port"), help: "Cleartext port for h2c and HTTP/1.1 (0 = any free port).")
    var cleartextPort = 2198

    @Option(name: .customLong("production-tls-port"), help: "Extra TLS port whose requests are production by default.")
    var productionTLSPort: Int?

    @Flag(name: .customLong("no-tls"), help: "Do not open the TLS listener.")
    var noTLS = false

    @Flag(name: .customLong("no-cleartext"), help: "Do not open the cleartext listener.")
    var noCleartext = false

    @Option(
        name: .customLong("certs-dir"),
        help:
            "Where the local CA, server certificate and sample credentials live (with --cert/--key: the sample APNs key and service account)."
    )
    var certificatesDirectory = "certs"

    @Option(name: .customLong("cert"), help: "Your own server certificate chain (PEM); needs --key.")
    var certificatePath: String?

    @Option(name: .customLong("key"), help: "Your own server private key (PEM).")
    var keyPath: String?

    @Option(name: .customLong("ca"), help: "The CA of --cert, to print for clients.")
    var caPath: String?

    @Option(
        name: .customLong("client-ca"), help: "Trust client certificates issued by this CA (PEM) for APNs certificate auth. Repeatable.")
    var clientCAs: [String] = []

    @Option(name: .customLong("config"), help: "JSON configuration file (keys, teams, tokens, options).")
    var configPath: String?

    @Option(
        name: .customLong("limit"),
        help: ArgumentHelp(
            "Raise or lower a registry cap or a device-simulation bound, e.g. apnsDeviceTokens=500000 (repeatable; wins over --config's \"limits\"; GET /_pushmock/info lists them all).",
            valueName: "name=count"))
    var limitArguments: [String] = []

    @Option(
        name: .customLong("playback"),
        help: "Answer requests that match ones recorded in this journal with the recorded responses (docs/replay.md).")
    var playbackJournal: String?

    @Option(
        name: .customLong("playback-match"),
        help: "How playback matches requests: path, body (default: headers that matter + JSON body, member order ignored) or strict.")
    var playbackMatch: PlaybackOptions.Match = .body

    @Option(
        name: .customLong("playback-unmatched"),
        help: "Requests no recording matches: simulate (answer normally, the default) or reject (404).")
    var playbackUnmatched: PlaybackOptions.Unmatched = .simulate

    @Option(
        name: .customLong("checks-dir"),
        help: ArgumentHelp(
            "A directory whose files the control API's checks may read (routesFile, policyFile, deepLink.routes). Repeatable; default: Recordings (in the working directory). Other paths get 403.",
            valueName: "dir"
        )
    )
    var checksDirectories: [String] = []

    @Option(
        name: .customLong("contracts"),
        help: ArgumentHelp(
            "A payload-contract file (docs/payload-contracts.md) checked at intake: every accepted push's record carries its violations beside its lint findings.",
            valueName: "file"
        )
    )
    var contractsPath: String?

    @Option(
        name: .customLong("control-token"),
        help: ArgumentHelp(
            "A secret the control API requires (Authorization: Bearer <token>). Required with a non-loopback --host. Also read from PUSHMOCK_CONTROL_TOKEN.",
            valueName: "token"
        )
    )
    var controlToken: String?

    @Option(
        name: .customLong("max-connections"),
        help: "Open connections beyond which new ones are closed at once (default 4096, capped by the descriptor limit).")
    var maximumConnections: Int?

    @Option(
        name: .customLong("handshake-timeout"),
        help: ArgumentHelp(
            "Close connections that have not finished TLS and shown their protocol in this time (default 10s).", valueName: "duration"))
    var handshakeTimeout: String?

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp("Close connections on which nothing was read or written for this long (default 1h).", valueName: "duration"))
    var idleTimeout: String?

    @Option(
        name: .customLong("return-memory-after"),
        help: ArgumentHelp(
            "Give free heap memory back to the system after this long without a request, once per burst (default 30s; off: never).",
            valueName: "duration|off"))
    var returnMemoryAfter = "30s"

    @Option(
        help:
            "Authentication: required (APNs provider tokens or client certificates, FCM/IID access tokens, Expo project access tokens) or none (nothing is checked on any service)."
    )
    var auth: APNsOptions.Authentication = .required

    @Option(help: "APNs environment when the :authority names no Apple host: sandbox or production.")
    var environment: EnvironmentArgument = .sandbox

    @Flag(name: .customLong("strict-token-length"), help: "Accept only 64-hex-digit device tokens.")
    var strictTokenLength = false

    @Flag(name: .customLong("reject-unknown-tokens"), help: "Answer BadDeviceToken for tokens not in the registry.")
    var rejectUnknownTokens = false

    @Option(
        name: .customLong("environment-key-spelling"),
        help: "observed (BadEnvironmentKeyInToken) or documented (BadEnvironmentKeyIdInToken).")
    var environmentKeySpelling: APNsReason.EnvironmentKeySpelling = .observed

    @Option(name: .customLong("max-concurrent-streams"), help: "HTTP/2 MAX_CONCURRENT_STREAMS to advertise.")
    var maxConcurrentStreams: UInt32 = 1000

    @Flag(
        name: .customLong("one-stream-until-authenticated"),
        help: "Allow one stream per connection until a request authenticates (Apple's documented behaviour).")
    var oneStreamUntilAuthenticated = false

    @Flag(
        name: .customLong("throttle-after-rejection"),
        help: "Drop MAX_CONCURRENT_STREAMS to 1 after a rejected push until the next accepted one.")
    var throttleAfterRejection = false

    @Option(help: "JSON Lines journal.")
    var journal = "Recordings/journal.jsonl"

    @Flag(name: .customLong("no-journal"), help: "Keep recordings in memory only.")
    var noJournal = false

    @Option(help: "Journal durability before a response is sent: written, fsync or fsync-interval.")
    var durability: RecordingOptions.Durability = .written

    @Option(
        name: .customLong("journal-max-bytes"),
        help: "Rotate the journal before it exceeds this size (suffix K, M or G; docs/journal-format.md). Default: never.")
    var journalMaxBytes: ByteSizeArgument?

    @Option(
        name: .customLong("journal-max-age"),
        help: "Rotate the journal once it has been open this long (e.g. 1h, 30m). Default: never.")
    var journalMaxAge: String?

    @Option(name: .customLong("journal-keep"), help: "Rotated journal files kept (journal.jsonl.1 … .N).")
    var journalKeep = 5

    @Option(name: .customLong("memory-capacity"), help: "Recordings kept in memory.")
    var memoryCapacity = 100_000

    @Option(
        name: .customLong("memory-bytes"), help: "Memory the recordings kept in memory may use (bytes; suffix K, M or G for KiB, MiB, GiB)."
    )
    var memoryBytes = ByteSizeArgument(bytes: 256 * 1024 * 1024)

    @Option(name: .customLong("ready-file"), help: "Write the listeners and credentials as JSON to this file once ready.")
    var readyFile: String?

    @Option(name: .customLong("clock-start"), help: "Start the gateway's clock at this time (ISO 8601) instead of now.")
    var clockStart: String?

    @Flag(name: .customLong("freeze-clock"), help: "Start with the clock frozen (move it with `pushmock clock`).")
    var freezeClock = false

    @Flag(name: .customLong("no-device-simulation"), help: "Keep no simulated device inboxes (throughput runs).")
    var noDeviceSimulation = false

    @Flag(name: .customLong("no-lint"), help: "Do not lint accepted notifications (docs/lint-rules.md).")
    var noLint = false

    @Option(name: .customLong("default-connectivity"), help: "Connectivity of newly seen devices: online, idle or offline.")
    var defaultConnectivity: String = "online"

    @Option(name: .customLong("inbox-port"), help: "Also serve the web inbox (docs/inbox.md) on this cleartext port (0 = any free port).")
    var inboxPort: Int?

    @Flag(name: .customLong("no-inbox"), help: "Do not serve the web inbox at / of the cleartext listener.")
    var noInbox = false

    @Option(help: "Event-loop threads (default: one per CPU this process may run on).")
    var threads: Int?

    @Flag(name: .customLong("no-metrics"), help: "Do not serve GET /metrics (Prometheus text; on by default).")
    var noMetrics = false

    @Option(name: .customLong("webhook"), help: "POST every recording to this URL (repeatable; docs/webhooks.md).")
    var webhooks: [String] = []

    @Option(name: .customLong("webhook-secret"), help: "HMAC-SHA256 key for the --webhook URLs (X-PushMock-Signature-256).")
    var webhookSecret: String?

    @Option(name: .customLong("webhook-filter"), help: "Send only recordings matching this query (platform=apns&status=4xx).")
    var webhookFilter: String?

    @Option(
        name: .customLong("webhook-ca"),
        help: "PEM file of the CA that signed an https --webhook receiver's certificate (trusted besides the system roots).")
    var webhookCA: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: LogLevelArgument = .info

    func validate() throws {
        if (certificatePath == nil) != (keyPath == nil) {
            throw ValidationError("--cert and --key go together.")
        }
        if let threads, let problem = GatewayConfiguration.problem(eventLoopThreads: threads) {
            throw ValidationError("--threads: \(problem).")
        }
        if memoryCapacity < 1 {
            throw ValidationError("--memory-capacity must be at least 1 (the newest record is always kept), not \(memoryCapacity).")
        }
        if maxConcurrentStreams < 1 {
            throw ValidationError(
                "--max-concurrent-streams must be at least 1: with 0 no request could be sent (a fault's settings action can refuse streams for a while)."
            )
        }
        if let clockStart, ISO8601Milliseconds.parse(clockStart) == nil, Int64(clockStart) == nil {
            throw ValidationError("--clock-start \(clockStart): use ISO 8601 such as 2026-11-21T10:00:00Z")
        }
        if Connectivity(rawValue: defaultConnectivity) == nil {
            throw ValidationError("--default-connectivity is online, idle or offline")
        }
        if noTLS && noCleartext {
            throw ValidationError("--no-tls and --no-cleartext together leave nothing to listen on.")
        }
        if let journalMaxAge, !(DurationText.parse(journalMaxAge).map({ $0 > .zero }) ?? false) {
            throw ValidationError("--journal-max-age \(journalMaxAge): use a positive duration such as 1h or 30m.")
        }
        if journalKeep < 0 {
            throw ValidationError("--journal-keep must be 0 or more.")
        }
        _ = try commandLineLimits()
        for port in [tlsPort, cleartextPort] + [productionTLSPort, inboxPort].compactMap({ $0 }) where !(0...65535).contains(port) {
            throw ValidationError("port \(port) is out of range 0–65535.")
        }
    }

    func makeConfiguration() throws -> GatewayConfiguration {
        var apns = APNsOptions()
        apns.authentication = auth
        apns.defaultEnvironment = environment.value
        apns.tokenFormat = strictTokenLength ? .strict64 : .variable
        apns.rejectUnknownTokens = rejectUnknownTokens
        apns.environmentKeySpelling = environmentKeySpelling
        apns.maxConcurrentStreams = maxConcurrentStreams
        apns.oneStreamUntilAuthenticated = oneStreamUntilAuthenticated
        apns.throttleStreamsAfterRejection = throttleAfterRejection
        var fcm = FCMOptions()
        fcm.authentication = auth
        var expo = ExpoOptions()
        expo.authentication = auth
        var configuration = GatewayConfiguration(
            host: host,
            tlsPort: noTLS ? nil : tlsPort,
            cleartextPort: noCleartext ? nil : cleartextPort,
            productionTLSPort: productionTLSPort,
            tlsIdentity: certificatePath.map { .files(certificatePath: $0, keyPath: keyPath!, caPath: caPath) }
                ?? .managed(directory: certificatesDirectory),
            clientCertificateAuthorityPaths: clientCAs,
            apns: apns,
            fcm: fcm,
            expo: expo,
            recording: RecordingOptions(
                memoryCapacity: memoryCapacity,
                memoryBytes: memoryBytes.bytes,
                journalPath: noJournal ? nil : journal,
                durability: durability
            ),
            eventLoopThreads: threads
        )
        if certificatePath != nil {
            // Your own server certificate, and still the sample APNs key and service account
            // (in --certs-dir) so the quick-start credentials work against it.
            configuration.sampleCredentialsDirectory = certificatesDirectory
        }
        configuration.recording.journalMaximumBytes = journalMaxBytes.map { Int64($0.bytes) }
        configuration.recording.journalMaximumAge = journalMaxAge.flatMap { DurationText.parse($0) }
        configuration.recording.journalKeep = journalKeep
        if !checksDirectories.isEmpty { configuration.checksDirectories = checksDirectories }
        configuration.controlAccess.token = controlToken ?? ProcessInfo.processInfo.environment["PUSHMOCK_CONTROL_TOKEN"]
        if let maximumConnections {
            guard maximumConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") }
            configuration.connectionLimits.maximumConnections = maximumConnections
        }
        for (flag, text, keyPath) in [
            ("--handshake-timeout", handshakeTimeout, \ConnectionLimits.handshakeTimeout),
            ("--idle-timeout", idleTimeout, \ConnectionLimits.idleTimeout),
        ] {
            guard let text else { continue }
            // A timer longer than a day would overflow NIO's nanoseconds long before it mattered.
            guard let duration = DurationText.parse(text), duration > .zero, duration <= .seconds(86_400 * 7) else {
                throw ValidationError("\(flag) is a duration from 1ms to 7d, e.g. 10s")
            }
            configuration.connectionLimits[keyPath: keyPath] = duration
        }
        if returnMemoryAfter.lowercased() == "off" {
            configuration.idleMemoryReturn = nil
        } else {
            guard let duration = DurationText.parse(returnMemoryAfter), duration >= .seconds(1), duration <= .seconds(86_400 * 7) else {
                throw ValidationError("--return-memory-after is a duration from 1s to 7d, e.g. 30s, or off")
            }
            configuration.idleMemoryReturn = duration
        }
        configuration.metricsEnabled = !noMetrics
        configuration.webhooks.webhooks = webhooks.map {
            WebhookDefinition(url: $0, secret: webhookSecret, filter: webhookFilter, caCertificate: webhookCA)
        }
        configuration.controlAPIExtensions.append(CheckControlAPI())
        if let contractsPath {
            let bytes: Data
            do {
                bytes = try FileContents.read(contractsPath)
            } catch {
                throw ValidationError("--contracts \(contractsPath): cannot read the file: \(error.reason)")
            }
            do {
                let contracts = try ContractFile(parsing: Array(bytes), file: contractsPath)
                configuration.recordAnnotators.append(ContractAnnotator(contracts: contracts))
            } catch {
                throw ValidationError("--contracts \(contractsPath): \(error.description)")
            }
        }
        configuration.simulation.simulateDevices = !noDeviceSimulation
        configuration.inbox.enabled = !noInbox
        configuration.inbox.port = inboxPort
        if noLint { configuration.simulation.lint = nil }
        configuration.simulation.defaultConnectivity = Connectivity(rawValue: defaultConnectivity) ?? .online
        if let playbackJournal {
            configuration.playback = PlaybackOptions(journalPath: playbackJournal, match: playbackMatch, unmatched: playbackUnmatched)
        }
        if let configPath {
            try ConfigurationFile.load(path: configPath).apply(to: &configuration)
        }
        // After the file: the command line is the more specific of the two.
        try commandLineLimits().apply(to: &configuration)
        return configuration
    }

    /// `--limit NAME=COUNT`, each checked (an unknown name lists the known ones).
    func commandLineLimits() throws -> CapacityLimits {
        var limits = CapacityLimits()
        for argument in limitArguments {
            do {
                try limits.set(parsing: argument)
            } catch {
                throw ValidationError("--limit: \(error)")
            }
        }
        return limits
    }

    func run() async throws {
        var logger = Logger(label: "pushmock")
        logger.logLevel = logLevel.value
        let configuration: GatewayConfiguration
        let server: PushMockServer
        do {
            configuration = try makeConfiguration()
            server = try PushMockServer(configuration: configuration, logger: logger)
            if let configPath {
                try ConfigurationFile.load(path: configPath).register(in: server.state)
            }
            let start = clockStart.flatMap { ISO8601Milliseconds.parse($0) ?? Int64($0) }.map(Timestamp.init(millisecondsSince1970:))
            if freezeClock {
                server.state.virtualClock?.freeze(at: start)
            } else if let start {
                server.state.virtualClock?.set(to: start)
            }
        } catch let error as DefinitionError {
            throw ValidationError(error.description)
        }
        let readyFile = self.readyFile
        let group = ServiceGroup(
            configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                try await group.run()
            }
            tasks.addTask {
                let info = try await server.waitUntilReady()
                Banner.print(info)
                if let readyFile {
                    try ReadyFile.write(info, to: readyFile)
                }
            }
            try await tasks.waitForAll()
        }
    }
}

/// `sandbox` / `production` as a command-line value.
struct EnvironmentArgument: ExpressibleByArgument {
    var value: APNsEnvironment

    static let sandbox = EnvironmentArgument(value: .sandbox)

    init(value: APNsEnvironment) { self.value = value }

    init?(argument: String) {
        guard let environment = APNsEnvironment(name: argument) else { return nil }
        self.value = environment
    }

    var defaultValueDescription: String { value.name }

    static var allValueStrings: [String] { ["sandbox", "production"] }
}

/// A positive number of bytes as a command-line value: `268435456`, `256M`, `1G`, `512K`
/// (binary multiples; an optional `iB` or `B` after the letter is accepted).
struct ByteSizeArgument: ExpressibleByArgument {
    var bytes: Int

    init(bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        var text = Substring(argument.uppercased())
        if text.hasSuffix("IB") {
            text = text.dropLast(2)
        } else if text.hasSuffix("B") {
            text = text.dropLast()
        }
        var multiplier = 1
        switch text.last {
        case "K"?: multiplier = 1 << 10
        case "M"?: multiplier = 1 << 20
        case "G"?: multiplier = 1 << 30
        default: break
        }
        if multiplier != 1 { text = text.dropLast() }
        guard let count = Int(text), count > 0 else { return nil }
        let (bytes, overflow) = count.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        self.bytes = bytes
    }

    var defaultValueDescription: String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20)M" : "\(bytes)"
    }
}

/// A swift-log level as a command-line value.
struct LogLevelArgument: ExpressibleByArgument {
    var value: Logger.Level

    static let info = LogLevelArgument(value: .info)

    init(value: Logger.Level) { self.value = value }

    init?(argument: String) {
        guard let level = Logger.Level(rawValue: argument.lowercased()) else { return nil }
        self.value = level
    }

    var defaultValueDescription: String { value.rawValue }

    static var allValueStrings: [String] { Logger.Level.allCases.map(\.rawValue) }
}

extension APNsOptions.Authentication: ExpressibleByArgument {}
extension APNsReason.EnvironmentKeySpelling: ExpressibleByArgument {}
extension RecordingOptions.Durability: ExpressibleByArgument {}

extension PlaybackOptions.Match: ExpressibleByArgument {}
extension PlaybackOptions.Unmatched: ExpressibleByArgument {}
