import Prometheus
import PushMockCore
import PushMockRecording
import PushMockSimulation

/// A connection's counts and latencies of the current read batch, added to the gateway's
/// shared counters and histograms once per batch (``flush()``): on the request path a
/// dictionary lookup and an append to memory only this connection's event loop touches,
/// instead of an atomic add (or a registry lookup) and a histogram lock per request. Owned by
/// ``GatewayConnection``; never shared.
struct RequestTally {
    private struct Key: Hashable {
        var endpoint: EndpointID
        var status: Int
        var reason: String?
    }

    private struct Slot {
        let counter: Prometheus.Counter
        var pending: Int64 = 0
    }

    let metrics: GatewayMetrics
    private var requests: [Key: Slot] = [:]
    private var faults: [FaultAction.Kind: (counter: Prometheus.Counter, endpoint: EndpointID, pending: Int64)] = [:]
    private var hasPending = false
    /// The label set counted last, its slot, and its endpoint's histogram: a connection's
    /// requests mostly share one outcome, and hashing the key (a string among its fields) and
    /// the histogram lookup were most of this function's cost. Replaced whenever `requests`
    /// gains a key (which moves its indices), so the slot it holds is always valid.
    private var last: (key: Key, slot: Dictionary<Key, Slot>.Index, histogram: Int?)?
    /// The batch's latencies, by histogram (an index into `histograms`), recorded at
    /// ``flush()``. swift-prometheus's histogram takes its lock for every value it records;
    /// recorded per request, two event loops contended for the same endpoint's lock (a 4 s
    /// `perf` record of futex calls, two loops on the TLS 4×100 benchmark: 6,223 from here).
    /// Recorded back to back at the end of the batch, one loop's run of values rarely meets
    /// the other's (448).
    private var histograms: [(histogram: DurationHistogram, pending: [Duration])] = []

    init(metrics: GatewayMetrics) {
        self.metrics = metrics
    }

    /// Counts one answered request; `latency` goes to the endpoint's histogram.
    mutating func count(_ endpoint: EndpointID, status: Int, reason: String?, latency: Duration) {
        hasPending = true
        if let last, last.key.endpoint == endpoint, last.key.status == status, last.key.reason == reason {
            requests.values[last.slot].pending += 1
            if let histogram = last.histogram { histograms[histogram].pending.append(latency) }
            return
        }
        let key = Key(endpoint: endpoint, status: status, reason: reason)
        let slot: Dictionary<Key, Slot>.Index
        if let index = requests.index(forKey: key) {
            requests.values[index].pending += 1
            slot = index
        } else {
            requests[key] = Slot(counter: metrics.requests(endpoint: endpoint, status: status, reason: reason), pending: 1)
            slot = requests.index(forKey: key)!
        }
        let histogram = histogramIndex(of: endpoint)
        last = (key, slot, histogram)
        if let histogram { histograms[histogram].pending.append(latency) }
    }

    /// The index in `histograms` of `endpoint`'s histogram, added on first use (`nil`: the
    /// endpoint has none).
    private mutating func histogramIndex(of endpoint: EndpointID) -> Int? {
        guard let histogram = metrics.latency(endpoint) else { return nil }
        if let index = histograms.firstIndex(where: { $0.histogram === histogram }) { return index }
        histograms.append((histogram, []))
        return histograms.count - 1
    }

    mutating func faultFired(_ kind: FaultAction.Kind, at endpoint: EndpointID) {
        if faults[kind]?.endpoint == endpoint {
            faults[kind]!.pending += 1
        } else {
            flushFaults()
            faults[kind] = (metrics.faults(endpoint: endpoint, action: kind), endpoint, 1)
        }
        hasPending = true
    }

    /// Adds the batch's counts to the shared counters.
    mutating func flush() {
        guard hasPending else { return }
        hasPending = false
        for index in requests.indices where requests.values[index].pending > 0 {
            requests.values[index].counter.increment(by: requests.values[index].pending)
            requests.values[index].pending = 0
        }
        for index in histograms.indices where !histograms[index].pending.isEmpty {
            for latency in histograms[index].pending {
                histograms[index].histogram.record(latency)
            }
            histograms[index].pending.removeAll(keepingCapacity: true)
        }
        flushFaults()
    }

    private mutating func flushFaults() {
        for (kind, entry) in faults where entry.pending > 0 {
            entry.counter.increment(by: entry.pending)
            faults[kind]!.pending = 0
        }
    }
}

/// `GET /metrics`: the gateway's series in the Prometheus text format (version 0.0.4). Served
/// on every listener like the control API, never recorded, never faulted; `serve --no-metrics`
/// answers 404.
struct MetricsEndpoint: GatewayEndpoint {
    static let path = "/metrics"

    struct Exchange: EndpointExchange {
        let request: HTTPRequestMessage
        var reply: HTTPReply?

        var isAccepted: Bool { false }
        var faultFacts: FaultFacts { FaultFacts() }
    }

    static var faultPlatform: Platform? { nil }

    func parse(_ request: consuming HTTPRequestMessage, in context: PipelineContext) -> Exchange {
        Exchange(request: request)
    }

    func answerInjected(_ action: FaultAction, _ exchange: inout Exchange, in context: PipelineContext) {}

    func applyState(_ exchange: inout Exchange, in context: PipelineContext) {
        var headers = HTTPHeaderList()
        guard let metrics = context.state.metrics else {
            headers.append(name: "content-type", value: "text/plain; charset=utf-8")
            exchange.reply = .respond(
                HTTPResponseMessage(status: 404, headers: headers, body: Array("metrics are off (pushmock serve --no-metrics)\n".utf8))
            )
            return
        }
        let method = exchange.request.method
        guard method == "GET" || method == "HEAD" else {
            headers.append(name: "allow", value: "GET, HEAD")
            headers.append(name: "content-type", value: "text/plain; charset=utf-8")
            exchange.reply = .respond(HTTPResponseMessage(status: 405, headers: headers, body: Array("use GET\n".utf8)))
            return
        }
        headers.append(name: "content-type", value: "text/plain; version=0.0.4; charset=utf-8")
        let body = metrics.render(state: context.state)
        exchange.reply = .respond(HTTPResponseMessage(status: 200, headers: headers, body: method == "HEAD" ? [] : body))
    }

    func record(_ exchange: Exchange, in context: PipelineContext, latencyMicroseconds: Int64, into record: inout ExchangeRecord) -> Bool {
        false
    }
}
