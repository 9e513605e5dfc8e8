import Foundation
import PushMockSender
import Testing

/// `LocalPushMock` reads what `pushmock serve` writes. These cases write the files by hand, so
/// a ready file from an older gateway (before `expoBaseURL`) is covered too.
@Suite("LocalPushMock")
struct LocalPushMockTests {
    /// A directory with a ready file whose JSON is `ready`, and the CA file it names.
    static func readyFile(_ ready: String) throws -> (directory: String, path: String) {
        let directory = NSTemporaryDirectory() + "pushmock-local-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/certs", withIntermediateDirectories: true)
        try "not a real CA".write(toFile: directory + "/certs/ca.pem", atomically: true, encoding: .utf8)
        let path = directory + "/ready.json"
        try ready.write(toFile: path, atomically: true, encoding: .utf8)
        return (directory, path)
    }

    @Test(
        "the Expo base URL: expoBaseURL, else the cleartext listener, else the TLS one",
        arguments: [
            (
                #"{"caCertificatePath":"certs/ca.pem","expoBaseURL":"http://127.0.0.1:41000","cleartext":{"url":"http://127.0.0.1:42000"}}"#,
                "http://127.0.0.1:41000"
            ),
            (#"{"caCertificatePath":"certs/ca.pem","cleartext":{"url":"http://127.0.0.1:42000"}}"#, "http://127.0.0.1:42000"),
            (#"{"caCertificatePath":"certs/ca.pem","tls":{"url":"https://127.0.0.1:43000"}}"#, "https://127.0.0.1:43000"),
        ])
    func expoBaseURL(ready: String, expected: String) throws {
        let (directory, path) = try Self.readyFile(ready)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let mock = try LocalPushMock(readyFile: path)
        #expect(mock.expoBaseURL == expected)
        #expect(try mock.expoConfiguration().server == SenderEndpoint(url: expected))
    }

    @Test("without a ready file: the default cleartext port")
    func defaultExpoBaseURL() throws {
        let (directory, _) = try Self.readyFile("{}")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try LocalPushMock(certificatesDirectory: directory + "/certs").expoBaseURL == "http://127.0.0.1:2198")
    }
}
