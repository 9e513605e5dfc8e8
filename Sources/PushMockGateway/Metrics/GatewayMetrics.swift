package import Prometheus
@_spi(Locking) import PushMockCore
import PushMockRecording
import PushMockSimulation

/// One gateway's Prometheus series (`GET /metrics`), in a registry of its own.
///
/// Per gateway, not global: swift-metrics' `MetricsSystem.bootstrap` may run once per process
/// and would make every gateway of a test process (and the user's own code) count into one
/// set of series. So the gateway writes its own series straight into its
/// `PrometheusCollectorRegistry` (typed handles, help texts, explicit buckets) and hands
/// ``factory`` — swift-metrics' `MetricsFactory` over the same registry — to components that
/// speak the swift-metrics API (the webhook dispatcher), which create their metrics with
/// `Counter(label:dimensions:factory:)` and never touch the global system.
///
/// On the request path the connection counts into a ``RequestTally`` it owns and adds the
/// batch's counts to these atomic counters once per read batch, and the batch's latencies to
/// the endpoint's histogram back to back at the same point (swift-prometheus's histogram has
/// no batch update and takes its lock per value).
package final class GatewayMetrics: Sendable {
    package let registry: PrometheusCollectorRegistry
    /// swift-metrics over ``registry``.
    package let factory: PrometheusMetricsFactory

    /// Request latency by endpoint, built once (the endpoint set is fixed).
    private let latencies: [EndpointID: DurationHistogram]
    let connectionsOpen: Prometheus.Gauge
    private let connectionsAccepted: [String: Prometheus.Counter]
    private let journalBytes: Prometheus.Counter
    private let journalErrors: Prometheus.Counter
    private let journalSyncs: Prometheus.Counter
    private let devices: Prometheus.Gauge
    private let recordings: Prometheus.Gauge
    private let recordingBytes: Prometheus.Gauge
    private let faultRules: Prometheus.Gauge
    private let memoryReturns: Prometheus.Counter
    private let memoryReturnedBytes: Prometheus.Counter
    /// Entries of the registries that sends and the control API grow, by registry.
    private let registryEntries: [String: Prometheus.Gauge]
    /// The journal's statistics at the last scrape (its counters only grow; the series get the
    /// difference).
    private let journalSeen = SanitizerVisibleMutex<JournalWriter.Statistics?>(nil)

    static let latencyBuckets: [Duration] = [
        .microseconds(25), .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
        .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
    ]

    package init() {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["pushmock_webhook_attempt_duration_seconds"] = [
            .milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(250),
            .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30),
        ]
        self.factory = factory
        var latencies: [EndpointID: DurationHistogram] = [:]
        for endpoint in EndpointID.measured {
            latencies[endpoint] = registry.makeDurationHistogram(
                descriptor: Self.name(
                    "request_duration",
                    unit: "seconds",
                    "Time from parsing a request to its answer (recording included, injected delay added)."
                ),
                labels: [("platform", endpoint.metricsPlatform), ("endpoint", endpoint.metricsName)],
                buckets: Self.latencyBuckets
            )
        }
        self.latencies = latencies
        connectionsOpen = registry.makeGauge(descriptor: Self.name("connections_open", "Client connections open now."))
        var accepted: [String: Prometheus.Counter] = [:]
        for listener in ["tls", "production-tls", "cleartext"] {
            accepted[listener] = registry.makeCounter(
                descriptor: Self.name("connections_accepted", unit: "total", "Client connections accepted, by listener."),
                labels: [("listener", listener)]
            )
        }
        connectionsAccepted = accepted
        journalBytes = registry.makeCounter(
            descriptor: Self.name("journal_written_bytes", unit: "total", "Bytes written to the JSON Lines journal."))
        journalErrors = registry.makeCounter(descriptor: Self.name("journal_errors", unit: "total", "Journal writes or syncs that failed."))
        journalSyncs = registry.makeCounter(descriptor: Self.name("journal_syncs", unit: "total", "fdatasync calls on the journal."))
        devices = registry.makeGauge(descriptor: Self.name("simulated_devices", "Simulated devices (inboxes) the gateway keeps."))
        recordings = registry.makeGauge(descriptor: Self.name("recordings", "Recorded exchanges held in memory."))
        recordingBytes = registry.makeGauge(descriptor: Self.name("recordings_bytes", "Bytes of journal lines held in memory."))
        faultRules = registry.makeGauge(descriptor: Self.name("fault_rules", "Fault rules loaded."))
        memoryReturns = registry.makeCounter(
            descriptor: Self.name(
                "memory_returns", unit: "total", "Times free heap memory was given back to the system after a quiet period."))
        memoryReturnedBytes = registry.makeCounter(
            descriptor: Self.name(
                "memory_returned_bytes", unit: "total", "How much those returns shrank the resident set, in bytes."))
        var entries: [String: Prometheus.Gauge] = [:]
        for name in Self.registryNames {
            entries[name] = registry.makeGauge(
                descriptor: Self.name("registry_entries", "Entries held by a registry (docs/SECURITY.md, RegistryLimits)."),
                labels: [("registry", name)]
            )
        }
        registryEntries = entries
    }

    /// The `registry` labels of `pushmock_registry_entries`.
    static let registryNames = ["apns_tokens", "fcm_tokens", "expo_tokens", "expo_receipts", "access_tokens"]

    // MARK: Request path

    /// The requests counter of one label set (looked up under the registry's lock: connections
    /// keep what they looked up).
    func requests(endpoint: EndpointID, status: Int, reason: String?) -> Prometheus.Counter {
        registry.makeCounter(
            descriptor: Self.name(
                "requests",
                unit: "total",
                "Requests answered, by platform, endpoint, HTTP status (none: no HTTP answer) and reason."
            ),
            labels: [
                ("platform", endpoint.metricsPlatform), ("endpoint", endpoint.metricsName),
                ("status", status == 0 ? "none" : String(status)), ("reason", reason ?? ""),
            ]
        )
    }

    func faults(endpoint: EndpointID, action: FaultAction.Kind) -> Prometheus.Counter {
        registry.makeCounter(
            descriptor: Self.name("faults_fired", unit: "total", "Injected faults that fired, by platform and action type."),
            labels: [("platform", endpoint.metricsPlatform), ("action", action.rawValue)]
        )
    }

    func latency(_ endpoint: EndpointID) -> DurationHistogram? {
        latencies[endpoint]
    }

    func connectionAccepted(tls: Bool, production: Bool) {
        connectionsAccepted[tls ? (production ? "production-tls" : "tls") : "cleartext"]?.increment()
        connectionsOpen.increment()
    }

    func connectionClosed() {
        connectionsOpen.decrement()
    }

    /// Free heap memory was given back to the system (``IdleMemoryReturn``); the resident
    /// set shrank by `bytes`.
    func memoryReturned(bytes: Int) {
        memoryReturns.increment()
        memoryReturnedBytes.increment(by: Int64(bytes))
    }

    /// `pushmock_<name>[_<unit>]` with its help text.
    private static func name(_ name: String, unit: String = "", _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "pushmock", metricName: name, unitName: unit, helpText: help)
    }

    // MARK: Scrape

    /// The Prometheus text exposition, after reading the gauges that are cheaper to read at
    /// scrape time than to keep up to date (devices, recordings, journal statistics).
    func render(state: GatewayState) -> [UInt8] {
        devices.set(Int64(state.simulatedDevices.count))
        recordings.set(Int64(state.recordings.count))
        recordingBytes.set(Int64(state.recordings.retainedBytes))
        faultRules.set(Int64(state.faults.rules.count))
        let counts = [
            "apns_tokens": state.devices.count, "fcm_tokens": state.fcmTokens.count, "expo_tokens": state.expoTokens.count,
            "expo_receipts": state.expoReceipts.count, "access_tokens": state.accessTokens.count,
        ]
        for (name, count) in counts {
            registryEntries[name]?.set(Int64(count))
        }
        if let statistics = state.journal?.statistics {
            journalSeen.withLock { seen in
                let before = seen ?? JournalWriter.Statistics()
                journalBytes.increment(by: Int64(statistics.bytesWritten &- before.bytesWritten))
                journalErrors.increment(by: Int64(statistics.failures &- before.failures))
                journalSyncs.increment(by: Int64(statistics.syncs &- before.syncs))
                seen = statistics
            }
        }
        return registry.emitToBuffer()
    }
}

extension EndpointID {
    /// Every endpoint that gets a latency histogram.
    static let measured: [EndpointID] = [
        .apnsDevice, .fcmSend, .oauthToken, .iidTopics, .fcmTopicSubscriptions, .expoSend, .expoReceipts, .control, .inbox, .metrics,
        .unrouted,
    ]

    /// The `endpoint` label.
    var metricsName: String {
        switch self {
        case .apnsDevice: return "apns_device"
        case .fcmSend: return "fcm_send"
        case .oauthToken: return "oauth_token"
        case .iidTopics: return "iid_topics"
        case .fcmTopicSubscriptions: return "fcm_topic_subscriptions"
        case .expoSend: return "expo_send"
        case .expoReceipts: return "expo_receipts"
        case .control: return "control"
        case .inbox: return "inbox"
        case .metrics: return "metrics"
        case .unrouted: return "unrouted"
        }
    }

    /// The `platform` label: the service the endpoint impersonates (`none` for the gateway's
    /// own endpoints and unrouted paths).
    var metricsPlatform: String {
        switch self {
        case .apnsDevice: return Platform.apns.rawValue
        case .fcmSend, .oauthToken, .iidTopics, .fcmTopicSubscriptions: return Platform.fcm.rawValue
        case .expoSend, .expoReceipts: return Platform.expo.rawValue
        case .control, .inbox, .metrics, .unrouted: return "none"
        }
    }
}
