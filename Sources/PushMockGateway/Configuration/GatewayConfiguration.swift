import PushMockTransport

/// Everything `pushmock serve` needs to start. Every property has a documented default; the
/// defaults are the zero-configuration behaviour.
public struct GatewayConfiguration: Sendable {
    /// Where the TLS identity comes from.
    public enum TLSIdentity: Sendable {
        /// Load or create a local CA and server certificate in this directory (default `certs`).
        case managed(directory: String)
        /// Your own certificate chain and key files; `caPath` is printed for clients.
        case files(certificatePath: String, keyPath: String, caPath: String?)
        /// Already loaded credentials (tests, `withPushMock`).
        case provided(GatewayCredentials)
    }

    /// Interface to bind. Default `127.0.0.1` (loopback only: the mock has no access control).
    public var host: String
    /// TLS listener port (ALPN h2 and http/1.1, and h2 without ALPN). Default 2197, the port
    /// APNs offers besides 443. `0` picks a free port; `nil` disables the listener.
    public var tlsPort: Int?
    /// Cleartext listener port (h2c prior knowledge and HTTP/1.1). Default 2198; `0` picks a
    /// free port; `nil` disables it.
    public var cleartextPort: Int?
    /// An extra TLS listener whose requests are production unless the authority says otherwise
    /// (the other listeners use ``APNsOptions/defaultEnvironment``). Default: none.
    public var productionTLSPort: Int?
    /// TLS identity. Default: managed in `certs/`.
    public var tlsIdentity: TLSIdentity
    /// PEM files of CAs whose client certificates are accepted for APNs certificate-based
    /// authentication. Default: none (client certificates are then not requested).
    public var clientCertificateAuthorityPaths: [String]
    /// Extra PEM CAs given directly (tests, control API).
    public var clientCertificateAuthorityPEMs: [String]
    /// Whether to register the sample APNs key so any client can authenticate. Default: true.
    public var trustSampleAPNsKey: Bool
    /// APNs behaviour.
    public var apns: APNsOptions
    /// FCM, OAuth2 and IID behaviour.
    public var fcm: FCMOptions
    /// Expo push service behaviour.
    public var expo: ExpoOptions
    /// Whether to write and trust the sample FCM service account. Default: true.
    public var trustSampleServiceAccount: Bool
    /// With ``TLSIdentity/files(certificatePath:keyPath:caPath:)``, where the sample APNs key
    /// and service account are loaded from or created (`pushmock serve --cert … --certs-dir`
    /// passes its `--certs-dir`). Default: `nil` — your own certificate comes with no sample
    /// credentials, and the ready banner says so. (A managed identity keeps them in its own
    /// directory.)
    public var sampleCredentialsDirectory: String? = nil
    /// Recording behaviour.
    public var recording: RecordingOptions
    /// Device simulation.
    public var simulation: SimulationOptions
    /// Body bytes stored per request (the rest is counted, then answered with 413). Default 1 MiB.
    public var maximumStoredBodyBytes: Int
    /// How long shutdown waits for in-flight requests before closing connections. Default 5 s.
    public var shutdownGracePeriod: Duration
    /// Event-loop threads, 1 to 1024 (three descriptors each, within `ulimit -n`). Default
    /// `nil`: one per CPU the process may run on (its affinity mask, so `taskset` and cpusets
    /// count).
    public var eventLoopThreads: Int?
    /// Answer requests that match a recorded journal's with the recorded responses
    /// (`docs/replay.md`). Default `nil`: no playback.
    public var playback: PlaybackOptions?
    /// The directories whose files the control API may read when a request body names one
    /// (`routesFile`, `policyFile`, an expectation's `deepLink.routes`; `pushmock serve
    /// --checks-dir`). Relative paths are taken from the working directory; symbolic links and
    /// `..` are resolved before comparing, and any other path is refused with 403. Default
    /// `["Recordings"]`: the working directory's `Recordings/`.
    public var checksDirectories: [String] = ["Recordings"]
    /// The web inbox at `/` of the cleartext listener (`docs/inbox.md`). Default: on, no extra port.
    public var inbox = InboxOptions()
    /// Whether `GET /metrics` serves the gateway's Prometheus series (`docs/webhooks.md`,
    /// "Metrics"). Default `true`: counting costs a dictionary lookup per request and a few
    /// atomic adds per read batch (`serve --no-metrics` turns it off).
    public var metricsEnabled: Bool = true
    /// Webhooks on receipt. Default: none.
    public var webhooks: WebhookOptions = WebhookOptions()
    /// Gives free heap memory back to the system (glibc's `malloc_trim`) once no exchange has
    /// been recorded for this long, after some were (`pushmock_memory_returns_total`). Default
    /// `nil`: never, since a library should not trim its host's heap; `pushmock serve` sets
    /// 30 s (`--return-memory-after`).
    public var idleMemoryReturn: Duration? = nil
    /// Areas added to the control API by other targets (the check endpoints of
    /// `PushMockCheckAPI`, which `pushmock serve` and `withPushMock` install). Default: none.
    package var controlAPIExtensions: [any ControlAPIExtension] = []
    /// Checks that add findings to accepted records at intake, installed at start (payload
    /// contracts from `serve --contracts`; the control API's `/_pushmock/contracts` replaces
    /// them at run time). Default: none.
    package var recordAnnotators: [any RecordAnnotator] = []
    /// Connection count, handshake and idle timeouts, body buffering caps. Default
    /// ``ConnectionLimits/defaults``.
    public var connectionLimits: ConnectionLimits = .defaults
    /// Who may use the control API (`--control-token`, allowed origins). Default: no token,
    /// loopback `Host` names and same-origin requests only.
    public var controlAccess: ControlAccess = ControlAccess()
    /// How many tokens, keys, users, rules, webhooks … the control API (and zero-configuration
    /// sends) may add. Default ``RegistryLimits/defaults``.
    public var registryLimits: RegistryLimits = .defaults

    public init(
        host: String = "127.0.0.1",
        tlsPort: Int? = 2197,
        cleartextPort: Int? = 2198,
        productionTLSPort: Int? = nil,
        tlsIdentity: TLSIdentity = .managed(directory: "certs"),
        clientCertificateAuthorityPaths: [String] = [],
        clientCertificateAuthorityPEMs: [String] = [],
        trustSampleAPNsKey: Bool = true,
        apns: APNsOptions = .defaults,
        fcm: FCMOptions = .defaults,
        expo: ExpoOptions = .defaults,
        trustSampleServiceAccount: Bool = true,
        recording: RecordingOptions = RecordingOptions(),
        simulation: SimulationOptions = .defaults,
        maximumStoredBodyBytes: Int = 1 << 20,
        shutdownGracePeriod: Duration = .seconds(5),
        eventLoopThreads: Int? = nil,
        playback: PlaybackOptions? = nil
    ) {
        self.playback = playback
        self.host = host
        self.tlsPort = tlsPort
        self.cleartextPort = cleartextPort
        self.productionTLSPort = productionTLSPort
        self.tlsIdentity = tlsIdentity
        self.clientCertificateAuthorityPaths = clientCertificateAuthorityPaths
        self.clientCertificateAuthorityPEMs = clientCertificateAuthorityPEMs
        self.trustSampleAPNsKey = trustSampleAPNsKey
        self.apns = apns
        self.fcm = fcm
        self.expo = expo
        self.trustSampleServiceAccount = trustSampleServiceAccount
        self.recording = recording
        self.simulation = simulation
        self.maximumStoredBodyBytes = maximumStoredBodyBytes
        self.shutdownGracePeriod = shutdownGracePeriod
        self.eventLoopThreads = eventLoopThreads
    }

    /// An in-process configuration for tests: loopback, free ports, throwaway TLS identity,
    /// no journal on disk, and a handshake timeout of 2 minutes instead of 10 s.
    ///
    /// The handshake timeout guards `pushmock serve` against clients that connect and never
    /// finish; a test's own gateway has no such clients, but its process may be very busy.
    /// Under ThreadSanitizer, with the CPUs oversubscribed four times, TLS handshakes took
    /// longer than 10 s and dozens of tests saw their connections closed.
    public static func testing(credentials: GatewayCredentials) -> GatewayConfiguration {
        var configuration = GatewayConfiguration(
            tlsPort: 0,
            cleartextPort: 0,
            tlsIdentity: .provided(credentials),
            recording: RecordingOptions(journalPath: nil)
        )
        configuration.connectionLimits.handshakeTimeout = .seconds(120)
        return configuration
    }

    /// Why ``eventLoopThreads`` = `count` cannot run in this process (1 to 1024, within the
    /// descriptor limit), or `nil` (the gateway refuses to start with it; `serve --threads`
    /// is a usage error).
    package static func problem(eventLoopThreads count: Int) -> String? {
        EventLoopCount.problem(running: count)
    }
}

/// How exchanges are recorded.
public struct RecordingOptions: Sendable, Hashable {
    /// When a journal line counts as safe.
    public enum Durability: String, Sendable, Hashable, Codable, CaseIterable {
        /// Written to the OS (`write(2)`) before the response is sent: survives the process
        /// being killed, not a power loss. Default.
        case written
        /// Group-committed with `fdatasync` before the responses of the batch are sent.
        case fsync
        /// Written before responding, `fdatasync` at most once a second in the background.
        case fsyncInterval = "fsync-interval"
    }

    /// Records kept in memory (oldest evicted first). Default 100 000.
    public var memoryCapacity: Int
    /// Memory the records kept in memory may hold, in bytes (an estimate: journal lines plus
    /// summaries); the oldest are evicted beyond it, whatever ``memoryCapacity`` allows, and the
    /// newest is always kept. Default 256 MiB.
    public var memoryBytes: Int
    /// JSON Lines journal path, or `nil` for no journal. Default `Recordings/journal.jsonl`.
    public var journalPath: String?
    /// Journal durability. Default: written.
    public var durability: Durability
    /// Rotate the journal before it would exceed this many bytes (`docs/journal-format.md`,
    /// "Rotation"). Default `nil`: no size limit.
    public var journalMaximumBytes: Int64? = nil
    /// Rotate the journal once it has been open this long. Default `nil`: no age limit.
    public var journalMaximumAge: Duration? = nil
    /// Rotated journal files kept (`journal.jsonl.1` … `.N`); older ones are deleted. Default 5.
    public var journalKeep: Int = 5

    public init(
        memoryCapacity: Int = 100_000,
        memoryBytes: Int = 256 * 1024 * 1024,
        journalPath: String? = "Recordings/journal.jsonl",
        durability: Durability = .written
    ) {
        self.memoryCapacity = memoryCapacity
        self.memoryBytes = memoryBytes
        self.journalPath = journalPath
        self.durability = durability
    }
}
