import Foundation
import PushMockGateway

/// The text `pushmock serve` prints once it is ready.
enum Banner {
    static func print(_ info: GatewayServerInfo) {
        FileHandle.standardOutput.write(Data(text(info).utf8))
    }

    /// One row per fact, labels padded to one column so the values line up whichever rows the
    /// configuration leaves out.
    static func text(_ info: GatewayServerInfo) -> String {
        var rows: [(label: String, value: String)] = []
        if let tls = info.tls {
            rows.append(("APNs + FCM (TLS, h2 + http/1.1):", "\(tls.url)   [APNs \(tls.environment)]"))
        }
        if let production = info.productionTLS {
            rows.append(("APNs (TLS, production):", "\(production.url)   [production]"))
        }
        if let cleartext = info.cleartext {
            rows.append(("Cleartext (h2c + HTTP/1.1):", "\(cleartext.url)   [\(cleartext.environment)]"))
        }
        if let ca = info.caCertificatePath {
            rows.append(("CA certificate (trust this):", ca))
        }
        if let key = info.apnsSampleKey {
            rows.append(
                ("Sample APNs key:", "\(key.path ?? "(in memory)")  key id \(key.keyId)  team id \(key.teamId)  topic \(key.topic)")
            )
        } else {
            rows.append(("Sample APNs key:", "none (register your keys with --config or POST /_pushmock/apns/keys)"))
        }
        if let account = info.fcmSampleServiceAccount {
            rows.append(
                (
                    "Sample FCM service account:",
                    "\(account.path ?? "(in memory)")  project \(account.projectId)  token_uri \(account.tokenUri)"
                )
            )
        } else {
            rows.append(("Sample FCM service account:", "none (register yours with --config or POST /_pushmock/fcm/service-accounts)"))
        }
        if let expo = info.expoBaseURL {
            // The one setting an Expo backend changes: its SDK's base URL (exp.host otherwise).
            rows.append(("Expo push service:", "\(expo)   (EXPO_BASE_URL for expo-server-sdk)"))
        }
        rows.append(("Journal:", info.journalPath ?? "off (memory only)"))
        if let inbox = info.inbox {
            rows.append(("Inbox (open in a browser):", inbox))
        }
        if let control = info.controlAPI {
            rows.append(("Control API:", "\(control)/recordings"))
        }
        let width = rows.map(\.label.count).max() ?? 0
        var lines = ["PushMock \(info.version) ready (pid \(info.pid))"]
        for row in rows {
            lines.append("  " + row.label + String(repeating: " ", count: width - row.label.count + 1) + row.value)
        }
        lines.append("Press Ctrl-C to stop.")
        return lines.joined(separator: "\n") + "\n"
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
