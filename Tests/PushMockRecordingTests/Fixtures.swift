import Foundation
@_spi(Locking) import PushMockCore
import PushMockRecording

/// A fully populated APNs send record.
func makeAPNsRecord(sequence: UInt64 = 0, namespace: String? = "ns-1") -> ExchangeRecord {
    ExchangeRecord(
        sequence: sequence,
        timeMilliseconds: 1_795_304_400_123,
        namespace: namespace,
        platform: .apns,
        connection: ConnectionInfo(
            id: 7, transport: "h2", tls: true, alpn: "h2", remoteAddress: "127.0.0.1:52144",
            clientCertificateSubject: "CN=Apple Push Services: com.example.app"
        ),
        streamID: 3,
        environment: "sandbox",
        request: RequestInfo(
            method: "POST",
            path: "/3/device/0a1b2c3d4e5f",
            authority: "api.sandbox.push.apple.com",
            scheme: "https",
            headers: [
                HeaderField("apns-topic", "com.example.app"),
                HeaderField("apns-push-type", "alert"),
                HeaderField("authorization", "<redacted>"),
                HeaderField("x-dup", "1"),
                HeaderField("x-dup", "2"),
            ],
            body: .json(Array(#"{"aps":{"alert":{"title":"Hi","body":"Ünïcödé \u0001 😀"},"badge":1}}"#.utf8)),
            bodySize: 80
        ),
        auth: AuthInfo(
            scheme: "bearer-jwt",
            jwtHeader: Array(#"{"alg":"ES256","kid":"ABC123DEFG"}"#.utf8),
            jwtClaims: Array(#"{"iss":"DEF123GHIJ","iat":1795304400}"#.utf8),
            keyID: "ABC123DEFG",
            teamID: "DEF123GHIJ",
            subject: nil,
            detail: "verified"
        ),
        notification: NotificationInfo(
            token: "0a1b2c3d4e5f", topic: "com.example.app", pushType: "alert", priority: 10,
            expiration: 0, collapseID: "c-1", messageID: "EC1BF194-B3B2-424A-89A9-5A918A6E6B5D"
        ),
        response: ResponseInfo(
            status: 200,
            headers: [HeaderField("apns-id", "EC1BF194-B3B2-424A-89A9-5A918A6E6B5D")]
        ),
        latencyMicroseconds: 85,
        annotations: ["lint": "ok", "fault": "none"]
    )
}

/// A unique scratch directory, removed by `cleanup()`.
struct TemporaryDirectory {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.path + "/pushmock-recording-tests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String {
        path + "/" + name
    }

    func cleanup() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

func readFile(_ path: String) -> [UInt8] {
    (FileManager.default.contents(atPath: path)).map { [UInt8]($0) } ?? []
}

/// A thread-safe counter for completion callbacks.
final class Counter: Sendable {
    private let value = SanitizerVisibleMutex(0)

    func increment() {
        value.withLock { $0 += 1 }
    }

    var current: Int {
        value.withLock { $0 }
    }
}
