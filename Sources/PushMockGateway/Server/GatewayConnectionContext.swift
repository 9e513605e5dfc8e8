import PushMockAuth
import PushMockCore
import PushMockRecording
import PushMockTransport
import Synchronization

/// Per-connection state: who is connected and how, the APNs authentication bound to the
/// connection, the MAX_CONCURRENT_STREAMS currently advertised, and a private random generator
/// for identifiers. Owned by the connection's responder; used only on its event loop.
final class GatewayConnectionContext {
    /// Process-wide connection counter (recorded as the connection id).
    private static let nextID = Atomic<UInt64>(1)

    let id: UInt64
    let transport: HTTPTransportProtocol
    let isTLS: Bool
    /// Whether `/` is the web inbox on this connection's listener.
    let servesInbox: Bool
    let alpn: String?
    let remoteAddress: String?
    /// The environment this listener serves when the authority does not name one.
    let listenerEnvironment: APNsEnvironment?
    let apnsAuthenticator: APNsConnectionAuthenticator
    /// The client certificate's subject, for the recording.
    let clientCertificateSubject: String?
    /// The connection's identifier generator (no locking: confined to the event loop).
    var random = FastRandom()
    /// The last request header list recorded on this connection, the placeholder that replaced
    /// its `authorization`, and the redacted copy the record got: a sender usually repeats its
    /// headers request after request, and redacting them again built a new list each time
    /// (≈ 2 % of the gateway's samples).
    var lastRecordedHeaders: (request: HTTPHeaderList, placeholder: String, recorded: HTTPHeaderList)?
    /// The last request body recorded on this connection and how it was recorded: a bulk send
    /// repeats one payload, and classifying it again (a validating JSON scan) was 1.5 % of the
    /// gateway's samples. Records of equal bodies then share one buffer, too.
    var lastRecordedBody: (request: [UInt8], recorded: RecordedBody)?
    private var advertisedMaxStreams: UInt32
    /// The connection as every record of it shows it (built once).
    let recordedConnection: ConnectionInfo

    init(
        transport: HTTPTransportProtocol,
        isTLS: Bool,
        servesInbox: Bool = false,
        alpn: String?,
        remoteAddress: String?,
        listenerEnvironment: APNsEnvironment?,
        apnsAuthenticator: APNsConnectionAuthenticator,
        clientCertificateSubject: String?,
        advertisedMaxStreams: UInt32
    ) {
        self.id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        self.transport = transport
        self.isTLS = isTLS
        self.servesInbox = servesInbox
        self.alpn = alpn
        self.remoteAddress = remoteAddress
        self.listenerEnvironment = listenerEnvironment
        self.apnsAuthenticator = apnsAuthenticator
        self.clientCertificateSubject = clientCertificateSubject
        self.advertisedMaxStreams = advertisedMaxStreams
        self.recordedConnection = ConnectionInfo(
            id: id,
            transport: transport.name,
            tls: isTLS,
            alpn: alpn,
            remoteAddress: remoteAddress,
            clientCertificateSubject: clientCertificateSubject
        )
    }

    /// The APNs environment of a request: Apple's host name in `:authority` wins (when enabled),
    /// then the listener's setting, then the configured default.
    func apnsEnvironment(authority: String?, options: APNsOptions) -> APNsEnvironment {
        let fallback = listenerEnvironment ?? options.defaultEnvironment
        guard options.environmentFromAuthority, let authority else { return fallback }
        // Clients send the same authority on every request of a connection: remember the answer.
        if let cached = lastAuthority, cached.authority == authority {
            return cached.environment
        }
        let environment = APNsEnvironment.named(byAuthority: authority) ?? fallback
        lastAuthority = (authority, environment)
        return environment
    }

    private var lastAuthority: (authority: String, environment: APNsEnvironment)?

    /// The `apns-topic` of the connection's last APNs request: the next request with the same
    /// bytes shares this string instead of allocating its own (clients send one topic, or a
    /// few, per connection).
    var lastAPNsTopic: String?

    /// A fresh lower-case UUID.
    func makeUUID() -> String {
        random.uuidString()
    }

    /// Appends a field `name` whose value is a fresh lower-case UUID, written straight into
    /// the list: no `String` to allocate for a value nobody reads again (`apns-unique-id`).
    func appendNewUUID(named name: HTTPFieldName, to headers: inout HTTPHeaderList) {
        let (high, low) = random.uuidBits()
        withUnsafeTemporaryAllocation(byteCount: 36, alignment: 8) { text in
            UUIDText.write(high: high, low: low, to: text)
            headers.append(name: UnsafeRawBufferPointer(start: name.utf8Start, count: name.count), value: UnsafeRawBufferPointer(text))
        }
    }

    /// A fresh lower-case UUID and its parsed value.
    func makeUUIDWithValue() -> (text: String, value: UUIDText.Parsed) {
        random.uuid()
    }

    /// Next value of the connection's generator (seeding, jitter).
    func nextRandom() -> UInt64 {
        random.next()
    }

    /// The SETTINGS change (if any) that APNs' stream realism calls for after a request.
    func streamSettingsAfter(accepted: Bool, options: APNsOptions) -> [HTTP2Setting] {
        guard transport.isHTTP2 else { return [] }
        var desired = options.maxConcurrentStreams
        if options.oneStreamUntilAuthenticated, !apnsAuthenticator.hasAuthenticated {
            desired = 1
        } else if options.throttleStreamsAfterRejection, !accepted {
            desired = 1
        }
        guard desired != advertisedMaxStreams else { return [] }
        advertisedMaxStreams = desired
        return [.maxConcurrentStreams(desired)]
    }
}
