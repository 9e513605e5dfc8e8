import Foundation
import PushMockGateway

/// The text `pushmock serve` prints once it is ready.
enum Banner {
    static func print(_ info: GatewayServerInfo) {
        var lines = ["PushMock \(info.version) ready (pid \(info.pid))"]
        if let tls = info.tls {
            lines.append("  APNs + FCM (TLS, h2 + http/1.1): \(tls.url)   [APNs \(tls.environment)]")
        }
        if let production = info.productionTLS {
            lines.append("  APNs (TLS, production):      \(production.url)   [production]")
        }
        if let cleartext = info.cleartext {
            lines.append("  Cleartext (h2c + HTTP/1.1):  \(cleartext.url)   [\(cleartext.environment)]")
        }
        if let ca = info.caCertificatePath {
            lines.append("  CA certificate (trust this): \(ca)")
        }
        if let key = info.apnsSampleKey {
            lines.append(
                "  Sample APNs key:             \(key.path ?? "(in memory)")  key id \(key.keyId)  team id \(key.teamId)  topic \(key.topic)"
            )
        } else {
            lines.append("  Sample APNs key:             none (register your keys with --config or POST /_pushmock/apns/keys)")
        }
        if let account = info.fcmSampleServiceAccount {
            lines.append(
                "  Sample FCM service account:  \(account.path ?? "(in memory)")  project \(account.projectId)  token_uri \(account.tokenUri)"
            )
        } else {
            lines.append(
                "  Sample FCM service account:  none (register yours with --config or POST /_pushmock/fcm/service-accounts)")
        }
        lines.append("  Journal:                     \(info.journalPath ?? "off (memory only)")")
        if let inbox = info.inbox {
            lines.append("  Inbox (open in a browser):   \(inbox)")
        }
        if let control = info.controlAPI {
            lines.append("  Control API:                 \(control)/recordings")
        }
        lines.append("Press Ctrl-C to stop.")
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}

/// `--ready-file`: the same information as JSON, written atomically.
enum ReadyFile {
    static func write(_ info: GatewayServerInfo, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(info)
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
