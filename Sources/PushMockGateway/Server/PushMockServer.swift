import CoreMetrics
import Foundation
package import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PushMockAuth
@_spi(Locking) package import PushMockCore
import PushMockRecording
import PushMockTransport
import PushMockWebhooks
import ServiceLifecycle

/// The gateway: binds the listeners, serves APNs (and the control API) on every one of them,
/// and drains gracefully on shutdown. A ServiceLifecycle `Service`: `run()` returns once a
/// graceful shutdown has finished (or throws if a listener cannot bind).
///
/// ```swift
/// let server = try PushMockServer(configuration: .testing(credentials: .ephemeral()))
/// try await withThrowingDiscardingTaskGroup { group in
///     group.addTask { try await server.run() }
///     let info = try await server.waitUntilReady()
///     …
///     server.triggerGracefulShutdown()
/// }
/// ```
package final class PushMockServer: Service, Sendable {
    /// The configuration it was started with (after the config file was applied).
    package let configuration: GatewayConfiguration
    /// Registries, recordings and clock, shared by every connection.
    package let state: GatewayState
    /// The TLS identity in use.
    package let credentials: GatewayCredentials
    private let logger: Logger
    private let group: any EventLoopGroup
    private let ownsGroup: Bool
    /// Where the control API's long work runs (checks over the whole store, schedules of a
    /// million steps): the gateway's own threads, so neither its event loops nor another
    /// gateway or library of the same process (NIO's shared pool) waits for a check.
    private let blockingPool = NIOThreadPool(numberOfThreads: PushMockServer.blockingThreads)
    /// Two: a long check (a schedule over years) leaves the other thread for the rest.
    static let blockingThreads = 2
    private let tlsContext: SanitizerVisibleMutex<NIOSSLContext?>
    private let readiness = ReadinessSignal()
    private let shutdownRequested = ShutdownSignal()
    private let connections = ConnectionTracker()
    /// Request body bytes all connections hold together (``ConnectionLimits``).
    private let bodyBudget: BodyBudget
    private let sampleServiceAccount: SanitizerVisibleMutex<SampleServiceAccount?>
    /// The service-account file this gateway wrote for a port the system picked, removed at
    /// shutdown (see ``removeEphemeralServiceAccountFile()``).
    private let ephemeralServiceAccountPath = SanitizerVisibleMutex<String?>(nil)
    /// What opening the journal found (reported in the server info).
    private let journalRecovery: JournalRecoveryInfo?

    /// The sample FCM service account, with `token_uri` pointing at the running gateway once
    /// it is ready.
    package var sampleFCMServiceAccount: SampleServiceAccount? {
        sampleServiceAccount.withLock { $0 }
    }

    /// Prepares credentials, registries and the journal. Nothing is bound until ``run()``.
    /// The default clock runs with real time and can be frozen, set and advanced through the
    /// control API.
    package init(
        configuration: GatewayConfiguration,
        clock: any PushMockClock = VirtualClock(),
        logger: Logger = Logger(label: "pushmock")
    ) throws {
        if let threads = configuration.eventLoopThreads, let problem = EventLoopCount.problem(running: threads) {
            throw GatewayStartError(problem)
        }
        self.configuration = configuration
        self.logger = logger

        switch configuration.tlsIdentity {
        case .managed(let directory):
            self.credentials = try GatewayCredentials.prepare(
                directory: directory,
                extraDNSNames: Self.isIPAddress(configuration.host) ? [] : [configuration.host],
                extraIPAddresses: Self.isIPAddress(configuration.host) && !["0.0.0.0", "::"].contains(configuration.host)
                    ? [configuration.host] : []
            )
        case .files(let certificatePath, let keyPath, let caPath):
            let own = try GatewayCredentials.files(certificatePath: certificatePath, keyPath: keyPath, caPath: caPath)
            self.credentials =
                try configuration.sampleCredentialsDirectory.map { try GatewayCredentials.addingSamples(to: own, directory: $0) } ?? own
        case .provided(let credentials):
            self.credentials = credentials
        }

        // NIO's shared group has one loop per online CPU; a process confined to fewer CPUs
        // (taskset, cpuset) gets its own group with one loop per CPU it may use.
        let affinityLimited = EventLoopCount.default < System.coreCount ? EventLoopCount.default : nil
        let group: any EventLoopGroup
        let ownsGroup: Bool
        if let threads = configuration.eventLoopThreads ?? affinityLimited {
            group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
            ownsGroup = true
        } else {
            group = MultiThreadedEventLoopGroup.singleton
            ownsGroup = false
        }

        let metrics = configuration.metricsEnabled ? GatewayMetrics() : nil
        let webhooks = RecordingWebhooks(
            dispatcher: WebhookDispatcher(
                options: WebhookDispatcherOptions(
                    queueCapacity: configuration.webhooks.queueCapacity,
                    concurrency: configuration.webhooks.concurrency
                ),
                group: group,
                metrics: metrics?.factory ?? NOOPMetricsHandler.instance,
                logger: logger
            )
        )
        for definition in configuration.webhooks.webhooks {
            try webhooks.add(definition, now: clock.now())
        }
        let journal: JournalWriter?
        var lastSequence: UInt64 = 0
        if let path = configuration.recording.journalPath {
            // Repair a torn last line and continue the numbering before appending (never
            // fatal: a journal that cannot be read still gets new lines after it).
            let recovery = try JournalRecovery.prepare(path: path)
            lastSequence = recovery.lastSequence
            if let torn = recovery.tornTail {
                logger.warning(
                    "journal: \(torn)",
                    metadata: ["journal": "\(path)", "lastSequence": "\(recovery.lastSequence)"]
                )
            }
            journalRecovery = JournalRecoveryInfo(recovery)
            let recording = configuration.recording
            let rotation: JournalWriter.Rotation? =
                recording.journalMaximumBytes == nil && recording.journalMaximumAge == nil
                ? nil
                : JournalWriter.Rotation(
                    maximumBytes: recording.journalMaximumBytes,
                    maximumAge: recording.journalMaximumAge,
                    keep: recording.journalKeep
                )
            journal = try JournalWriter(
                path: path,
                durability: Self.journalDurability(recording.durability),
                rotation: rotation,
                onError: { [logger] error in logger.error("journal: \(error)") }
            )
        } else {
            journal = nil
            journalRecovery = nil
        }
        self.bodyBudget = BodyBudget(limit: configuration.connectionLimits.maximumBufferedBodyBytes)
        self.state = GatewayState(
            clock: clock,
            apnsOptions: configuration.apns,
            fcmOptions: configuration.fcm,
            expoOptions: configuration.expo,
            simulationOptions: configuration.simulation,
            recordings: RecordingStore(
                configuration: .init(
                    capacity: configuration.recording.memoryCapacity,
                    byteCapacity: configuration.recording.memoryBytes,
                    lastAssignedSequence: lastSequence
                )
            ),
            journal: journal,
            playback: try configuration.playback.map { try PlaybackBook(options: $0) },
            metrics: metrics,
            webhooks: webhooks,
            registryLimits: configuration.registryLimits
        )
        if let playback = state.playback, let first = playback.damagedLines.first {
            // Until now these were dropped without a word, and the requests they recorded were
            // simulated as if the journal had never held them.
            logger.warning(
                "playback: \(playback.damagedLines.count) line(s) of the journal could not be read and are not played back; first: \(first)",
                metadata: ["journal": "\(playback.options.journalPath)", "answers": "\(playback.answerCount)"]
            )
        }
        for category in configuration.inbox.categories {
            state.notificationCategories.declare(category)
        }
        for annotator in configuration.recordAnnotators {
            state.recordAnnotators.install(annotator)
        }
        if configuration.trustSampleAPNsKey, let sample = credentials.sampleAPNsKey {
            state.apnsKeys.register(
                APNsKeyRecord(keyID: sample.keyID, teamID: sample.teamID, publicKey: sample.signingKey.publicKey)
            )
        }
        if configuration.trustSampleServiceAccount, let sample = credentials.sampleServiceAccount {
            state.serviceAccounts.register(
                ServiceAccountRecord(
                    clientEmail: sample.json.clientEmail,
                    privateKeyID: sample.json.privateKeyID,
                    publicKey: sample.key.publicKey,
                    projectID: sample.json.projectID
                )
            )
        }
        self.sampleServiceAccount = SanitizerVisibleMutex(credentials.sampleServiceAccount)

        self.group = group
        self.ownsGroup = ownsGroup
        self.tlsContext = SanitizerVisibleMutex(nil)
        if configuration.tlsPort != nil || configuration.productionTLSPort != nil {
            tlsContext.withLock { $0 = nil }
            try rebuildTLSContext()
        }
    }

    /// Waits until every listener is bound and returns where.
    package func waitUntilReady() async throws -> GatewayServerInfo {
        try await readiness.wait()
    }

    /// Starts a graceful shutdown (the same as SIGTERM under a ServiceGroup).
    package func triggerGracefulShutdown() {
        shutdownRequested.signal()
    }

    // MARK: Running

    package func run() async throws {
        var channels: [any Channel] = []
        blockingPool.start()
        do {
            try checkPublicBind()
            var info = GatewayServerInfo(pid: ProcessInfo.processInfo.processIdentifier, version: PushMockVersion.current)
            info.limits = configuration.capacityLimits
            if let port = configuration.tlsPort {
                let channel = try await bind(port: port, tls: true, environment: nil)
                channels.append(channel)
                info.tls = listenerInfo(channel, scheme: "https", environment: configuration.apns.defaultEnvironment)
            }
            if let port = configuration.productionTLSPort {
                let channel = try await bind(port: port, tls: true, environment: .production)
                channels.append(channel)
                info.productionTLS = listenerInfo(channel, scheme: "https", environment: .production)
            }
            if let port = configuration.cleartextPort {
                let channel = try await bind(port: port, tls: false, environment: nil, servesInbox: configuration.inbox.enabled)
                channels.append(channel)
                info.cleartext = listenerInfo(channel, scheme: "http", environment: configuration.apns.defaultEnvironment)
            }
            if configuration.inbox.enabled, let port = configuration.inbox.port {
                let channel = try await bind(port: port, tls: false, environment: nil, servesInbox: true)
                channels.append(channel)
                info.inboxListener = listenerInfo(channel, scheme: "http", environment: configuration.apns.defaultEnvironment)
            }
            if configuration.inbox.enabled {
                info.inbox = (info.inboxListener ?? info.cleartext).map { "\($0.url)/" }
            }
            info.caCertificatePath = credentials.certificateAuthorityPath
            if let sample = credentials.sampleAPNsKey, configuration.trustSampleAPNsKey {
                info.apnsSampleKey = .init(path: sample.path, keyId: sample.keyID, teamId: sample.teamID, topic: sample.topic)
            }
            info.journalPath = state.journalPath
            info.journalRecovery = journalRecovery
            if configuration.trustSampleServiceAccount, var sample = sampleServiceAccount.withLock({ $0 }) {
                // token_uri must name the port actually bound; the key stays the same.
                let tokenURI =
                    info.tls.map { "https://localhost:\($0.port)/token" }
                    ?? info.cleartext.map { "http://\($0.host):\($0.port)/token" }
                if let tokenURI {
                    let sharedPath = sample.path
                    try sample.update(tokenURI: tokenURI)
                    sampleServiceAccount.withLock { $0 = sample }
                    let portWasPicked = info.tls != nil ? configuration.tlsPort == 0 : configuration.cleartextPort == 0
                    if portWasPicked, let path = sample.path, path != sharedPath {
                        ephemeralServiceAccountPath.withLock { $0 = path }
                    }
                }
                info.fcmSampleServiceAccount = .init(
                    path: sample.path,
                    projectId: sample.json.projectID,
                    clientEmail: sample.json.clientEmail,
                    tokenUri: sample.json.tokenURI
                )
            }
            info.expoBaseURL = (info.cleartext ?? info.tls)?.url
            info.controlAPI = (info.cleartext ?? info.tls).map { "\($0.url)/_pushmock" }
            state.serviceAccounts.gatewayTokenURIs = Self.tokenURIs(of: info)
            state.serverInfo.withLock { $0 = info }
            readiness.succeed(info)
        } catch {
            readiness.fail(error)
            for channel in channels {
                try? await channel.close()
            }
            await shutdownGroup()
            throw error
        }

        let memoryReturn = configuration.idleMemoryReturn.map { quietPeriod in
            let recordings = state.recordings
            return Task {
                await IdleMemoryReturn(
                    quietPeriod: quietPeriod, activity: { recordings.lastSequence }, metrics: state.metrics, logger: logger
                ).run()
            }
        }
        await withGracefulShutdownHandler {
            await shutdownRequested.wait()
        } onGracefulShutdown: {
            self.shutdownRequested.signal()
        }
        memoryReturn?.cancel()

        logger.info("shutting down: draining connections")
        for channel in channels {
            try? await channel.close()
        }
        await connections.drain(gracePeriod: configuration.shutdownGracePeriod)
        state.webhooks.shutdown()
        state.journalClose()
        removeEphemeralServiceAccountFile()
        await shutdownGroup()
        logger.info("stopped")
    }

    /// A gateway on a port the system picked (`--tls-port 0`) wrote a service-account file named
    /// by that port. No one can know that name before the gateway runs, and its `token_uri`
    /// dies with the gateway, so the file goes with it: otherwise every such run (a test suite
    /// starting gateways on free ports) left another private key in `certs/`. A file for a
    /// port the user chose stays: a backend may be configured with its path.
    private func removeEphemeralServiceAccountFile() {
        guard let path = ephemeralServiceAccountPath.withLock({ $0 }) else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            logger.warning("could not remove \(path): \(error)")
        }
    }

    private func shutdownGroup() async {
        // Work still running finishes first; work still queued is refused (its connection is gone).
        try? await blockingPool.shutdownGracefully()
        if ownsGroup {
            try? await group.shutdownGracefully()
        }
    }

    /// The token endpoint's URLs on every listener, by the configured host and by the loopback
    /// names a local client uses (the sample `token_uri` says `localhost`).
    static func tokenURIs(of info: GatewayServerInfo) -> [String] {
        var uris: [String] = []
        for listener in [info.tls, info.productionTLS, info.cleartext].compactMap({ $0 }) {
            guard let scheme = listener.url.split(separator: ":").first else { continue }
            let configured = listener.host.contains(":") ? "[\(listener.host)]" : listener.host
            for host in Set([configured, "localhost", "127.0.0.1", "[::1]"]).sorted() {
                for path in TokenAudience.tokenPaths.sorted() {
                    uris.append("\(scheme)://\(host):\(listener.port)\(path)")
                }
            }
        }
        if let sample = info.fcmSampleServiceAccount?.tokenUri {
            uris.append(sample)
        }
        return uris
    }

    private func listenerInfo(_ channel: any Channel, scheme: String, environment: APNsEnvironment) -> GatewayServerInfo.Listener {
        let port = channel.localAddress?.port ?? 0
        let host = configuration.host
        let urlHost = host.contains(":") ? "[\(host)]" : host
        return .init(host: host, port: port, url: "\(scheme)://\(urlHost):\(port)", environment: environment.name)
    }

    private func bind(port: Int, tls: Bool, environment: APNsEnvironment?, servesInbox: Bool = false) async throws -> any Channel {
        let pipeline = HTTPServerPipeline(
            http2: HTTP2ServerConfiguration(
                initialSettings: HTTP2ServerConfiguration.apnsSettings(
                    maxConcurrentStreams: configuration.apns.oneStreamUntilAuthenticated ? 1 : configuration.apns.maxConcurrentStreams
                ),
                maximumStoredBodyBytes: configuration.maximumStoredBodyBytes,
                shutdownDebugData: APNsError(.shutdown).goAwayDebugData,
                maximumBufferedBodyBytesPerConnection: configuration.connectionLimits.maximumBufferedBodyBytesPerConnection,
                bodyBudget: bodyBudget,
                idleTimeoutDebugData: APNsError(.idleTimeout).goAwayDebugData
            )
        )
        let logger = self.logger
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelInitializer { channel in
                // Out of descriptors (EMFILE) or memory, stop accepting for a moment instead of
                // retrying in a busy loop, and say so (AcceptBackoff: why not NIO's handler).
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptBackoff(logger: logger))
                }
            }
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try self.initializeConnection(channel, tls: tls, environment: environment, servesInbox: servesInbox, pipeline: pipeline)
                }
            }
        do {
            return try await bootstrap.bind(host: configuration.host, port: port).get()
        } catch {
            throw GatewayStartError("cannot listen on \(configuration.host):\(port) (\(error))")
        }
    }

    private func initializeConnection(
        _ channel: any Channel,
        tls: Bool,
        environment: APNsEnvironment?,
        servesInbox: Bool,
        pipeline: HTTPServerPipeline
    ) throws {
        let limits = configuration.connectionLimits
        guard connections.admit(channel, limit: limits.effectiveMaximumConnections) else {
            // Over the cap: the child initializer's failure closes the socket at once.
            throw GatewayStartError("connection limit reached")
        }
        // Until TLS and the protocol are settled (the responder is asked for), a timer runs;
        // a client that connects and sends nothing useful is closed when it fires.
        let handshakeDeadline = channel.eventLoop.scheduleTask(in: TimeAmount(limits.handshakeTimeout)) {
            channel.close(promise: nil)
        }
        channel.closeFuture.whenComplete { _ in handshakeDeadline.cancel() }
        try channel.pipeline.syncOperations.addHandlers([
            IdleStateHandler(allTimeout: TimeAmount(limits.idleTimeout)),
            IdleConnectionCloser(),
        ])
        if let metrics = state.metrics {
            metrics.connectionAccepted(tls: tls, production: environment == .production)
            channel.closeFuture.whenComplete { _ in metrics.connectionClosed() }
        }
        let remote = channel.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" }
        let controlAPI = ControlAPI(
            state: state,
            extensions: configuration.controlAPIExtensions,
            files: ControlFileAccess(directories: configuration.checksDirectories),
            blockingPool: blockingPool,
            access: configuration.controlAccess,
            boundHost: configuration.host
        ) { [self] in try self.rebuildTLSContext() }
        let eventLoop = channel.eventLoop
        if tls {
            guard let context = tlsContext.withLock({ $0 }) else { throw GatewayStartError("TLS is not configured") }
            let sslHandler = NIOSSLServerHandler(context: context)
            try channel.pipeline.syncOperations.addHandler(sslHandler)
            try pipeline.addTLSNegotiation(to: channel) { [self] transport, alpn in
                var certificate: APNsClientCertificate?
                var problem: String?
                var subject: String?
                if let peer = sslHandler.peerCertificate {
                    do {
                        let parsed = try APNsClientCertificate(derBytes: try peer.toDERBytes())
                        certificate = parsed
                        subject = parsed.subject
                        if parsed.bundleID == nil, parsed.multiTopics.isEmpty {
                            problem = "the client certificate names no topic (no UID)"
                        }
                    } catch {
                        problem = "\(error)"
                    }
                }
                handshakeDeadline.cancel()
                return self.makeConnection(
                    transport: transport,
                    tls: true,
                    alpn: alpn,
                    remote: remote,
                    environment: environment,
                    certificate: certificate,
                    certificateProblem: problem,
                    certificateSubject: subject,
                    controlAPI: controlAPI,
                    eventLoop: eventLoop
                )
            }
        } else {
            try pipeline.addCleartextDetection(to: channel) { [self] transport in
                handshakeDeadline.cancel()
                return self.makeConnection(
                    transport: transport,
                    tls: false,
                    servesInbox: servesInbox,
                    alpn: nil,
                    remote: remote,
                    environment: environment,
                    certificate: nil,
                    certificateProblem: nil,
                    certificateSubject: nil,
                    controlAPI: controlAPI,
                    eventLoop: eventLoop
                )
            }
        }
    }

    private func makeConnection(
        transport: HTTPTransportProtocol,
        tls: Bool,
        servesInbox: Bool = false,
        alpn: String?,
        remote: String?,
        environment: APNsEnvironment?,
        certificate: APNsClientCertificate?,
        certificateProblem: String?,
        certificateSubject: String?,
        controlAPI: ControlAPI,
        eventLoop: any EventLoop
    ) -> any HTTPConnectionResponder {
        let authenticator = APNsConnectionAuthenticator(
            keys: state.apnsKeys,
            options: configuration.apns,
            credentialClock: state.credentialClock,
            certificate: certificate,
            certificateProblem: certificateProblem
        )
        let context = GatewayConnectionContext(
            transport: transport,
            isTLS: tls,
            servesInbox: servesInbox,
            alpn: alpn,
            remoteAddress: remote,
            listenerEnvironment: environment,
            apnsAuthenticator: authenticator,
            clientCertificateSubject: certificateSubject,
            advertisedMaxStreams: configuration.apns.oneStreamUntilAuthenticated ? 1 : configuration.apns.maxConcurrentStreams
        )
        return GatewayConnection(context: context, state: state, controlAPI: controlAPI, eventLoop: eventLoop, logger: logger)
    }

    // MARK: TLS

    /// Builds the TLS context from the credentials and the trusted client-certificate CAs.
    /// New connections use the new context; open ones keep theirs.
    func rebuildTLSContext() throws {
        var configurationTLS = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(credentials.certificateChainPEM.utf8)).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(credentials.privateKeyPEM.utf8), format: .pem))
        )
        configurationTLS.applicationProtocols = HTTPServerPipeline.alpnProtocols
        configurationTLS.minimumTLSVersion = .tlsv12
        var authorities: [NIOSSLCertificate] = []
        for path in configuration.clientCertificateAuthorityPaths {
            authorities += try NIOSSLCertificate.fromPEMFile(path)
        }
        for pem in configuration.clientCertificateAuthorityPEMs + state.addedClientCertificateAuthorities.withLock({ $0 }) {
            authorities += try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
        }
        if authorities.isEmpty {
            // No client-certificate CAs: do not ask for certificates at all.
            configurationTLS.certificateVerification = .none
        } else {
            // Ask for a certificate, verify it if presented (a bad one fails the handshake, as
            // APNs refuses revoked certificates), accept connections without one (token auth).
            configurationTLS.certificateVerification = .optionalVerification
            configurationTLS.trustRoots = .certificates(authorities)
        }
        let context = try NIOSSLContext(configuration: configurationTLS)
        tlsContext.withLock { $0 = context }
    }

    /// A gateway reachable beyond this machine must not expose an unauthenticated control
    /// API: without a control token it refuses to start; with one it still warns.
    private func checkPublicBind() throws {
        let host = configuration.host
        guard !ControlAccess.isLoopback(host) else { return }
        guard configuration.controlAccess.token != nil else {
            throw GatewayStartError(
                "listening on \(host) exposes the control API beyond this machine: give --control-token <secret> (docs/SECURITY.md)"
            )
        }
        logger.warning(
            "listening on a non-loopback address: APNs/FCM/Expo endpoints accept any client, the control API needs the token",
            metadata: ["host": "\(host)"]
        )
    }

    private static func isIPAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }

    private static func journalDurability(_ durability: RecordingOptions.Durability) -> JournalWriter.Durability {
        switch durability {
        case .written: return .written
        case .fsync: return .fsyncEachBatch
        case .fsyncInterval: return .fsyncInterval(.seconds(1))
        }
    }
}

/// A gateway that could not start (for example, a port in use).
package struct GatewayStartError: Error, CustomStringConvertible, Sendable {
    package var description: String

    package init(_ description: String) { self.description = description }
}

extension GatewayState {
    /// Flushes and closes the journal (shutdown).
    func journalClose() {
        try? journal?.close()
    }
}
