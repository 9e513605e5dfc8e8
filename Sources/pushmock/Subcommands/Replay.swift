import ArgumentParser
import Foundation
import PushMockAuth
import PushMockCore
import PushMockRecording
import PushMockReplay
import PushMockSender
import PushMockToolkit

/// `pushmock replay`: sends a journal's requests again, signed with the credentials given
/// here, and compares every outcome with the recorded one.
struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send recorded requests again with fresh credentials and compare the outcomes.",
        discussion: """
            Reads a journal (Recordings/journal.jsonl), selects the APNs, FCM and Expo send
            requests (all, or those matching the filters), sends them one by one in journal
            order to --to with the given credentials (the recorded authorization is never
            reused), and prints for each whether the outcome (status and APNs reason / FCM
            error / Expo tickets) is the same as recorded.

            Exit status: 0 when every outcome matches, 1 when any differs, 2 on a usage or
            I/O error (unreadable journal or credentials, missing credentials for a
            platform). See docs/replay.md.
            """
    )

    @Argument(help: "The journal to replay (JSON Lines).")
    var journal: String

    @Option(
        name: .customLong("to"),
        help: "Base URL of the target gateway, e.g. https://127.0.0.1:2197 or https://api.sandbox.push.apple.com (default: --ready-file's)."
    )
    var explicitTarget: String?

    @Option(
        name: .customLong("ready-file"),
        help:
            "Replay to the local `pushmock serve` that wrote this ready file: its addresses, CA, sample key and service account fill in what is not given. Env: PUSHMOCK_READY_FILE."
    )
    var readyFile: String?

    @Option(help: ":authority to send (api.push.apple.com makes the mock serve production). Default: the URL's host.")
    var authority: String?

    @Option(name: .customLong("ca"), help: "PEM file of the CA to trust (the mock's certs/ca.pem). Default: the system roots.")
    var caPath: String?

    // APNs credentials.
    @Option(help: "APNs .p8 signing key (a path, or the PEM text). Env: APNS_KEY.")
    var key: String?

    @Option(name: .customLong("key-id"), help: "The key's ID. Env: APNS_KEY_ID.")
    var keyID: String?

    @Option(name: .customLong("team-id"), help: "Your team ID. Env: APNS_TEAM_ID.")
    var teamID: String?

    @Option(name: .customLong("cert"), help: "APNs client certificate (PEM) for certificate authentication.")
    var certificate: String?

    @Option(name: .customLong("cert-key"), help: "Its private key (PEM); default: the --cert file.")
    var certificateKey: String?

    @Option(name: .customLong("p12"), help: "APNs client certificate and key as PKCS#12.")
    var pkcs12: String?

    @Option(name: .customLong("p12-password"), help: "The PKCS#12 passphrase. Env: APNS_P12_PASSWORD.")
    var pkcs12Password: String?

    // FCM credentials.
    @Option(
        name: .customLong("service-account"),
        help: "FCM service-account JSON (a path, or the JSON). Env: GOOGLE_APPLICATION_CREDENTIALS, FCM_SERVICE_ACCOUNT.")
    var serviceAccount: String?

    @Option(
        name: .customLong("to-project"),
        help: "Send FCM requests to this project instead of the recorded one (--project selects recorded ones).")
    var project: String?

    @Option(name: .customLong("token-uri"), help: "Where to get FCM access tokens (overrides the service account's token_uri).")
    var tokenURI: String?

    // Expo.
    @Option(name: .customLong("expo-to"), help: "Base URL for Expo requests (default: --to; production: https://exp.host).")
    var expoTarget: String?

    @Option(name: .customLong("expo-access-token"), help: "Expo access token (enhanced push security). Env: EXPO_ACCESS_TOKEN.")
    var expoAccessToken: String?

    /// Which exchanges: the flags of `pushmock recordings` (docs/queries.md).
    @OptionGroup var filter: QueryOptions

    // Sending and output.
    @Option(
        name: .customLong("max-attempts"), help: "Attempts per request, the first included. Default 1: no retries, so outcomes compare 1:1."
    )
    var maxAttempts = 1

    @Option(help: "Seconds to wait for each response.")
    var timeout: Double = 30

    @Flag(help: "Print the report as one JSON object on stdout.")
    var json = false

    @Option(
        name: .customLong("junit"),
        help: "Also write a JUnit XML report (one test case per exchange) to this file (directories created; - for standard output).")
    var junitPath: String?

    @Flag(name: .shortAndLong, help: "Print nothing; only the exit status (and --json / --junit if given).")
    var quiet = false

    func run() async throws {
        let report: ReplayReport
        do {
            report = try await replay()
        } catch let error as ReplayUsageError {
            FileHandle.standardError.write(Data("Error: \(error.message)\n".utf8))
            throw ExitCode(2)
        } catch let error as SenderError {
            FileHandle.standardError.write(Data("Error: \(error.message)\n".utf8))
            throw ExitCode(2)
        } catch let error as JournalIOError {
            FileHandle.standardError.write(Data("Error: \(readable: error)\n".utf8))
            throw ExitCode(2)
        }
        if JUnitFile.isStandardOutput(junitPath) {
            // Standard output carries the JUnit report alone.
        } else if json {
            print(report.renderJSON())
        } else if !quiet {
            print(report.renderText(), terminator: "")
        }
        if let junitPath {
            do {
                try JUnitFile.write(report.renderJUnit(), to: junitPath)
            } catch {
                FileHandle.standardError.write(Data("Error: \(readable: error)\n".utf8))
                throw ExitCode(2)
            }
        }
        if !report.allMatch { throw ExitCode(1) }
    }

    /// The local gateway of `--ready-file`, read once.
    private var localMock: LocalPushMock? {
        get throws {
            guard let readyFile = readyFile ?? Environment.value("PUSHMOCK_READY_FILE") else { return nil }
            return try LocalPushMock(readyFile: readyFile)
        }
    }

    private func replay() async throws -> ReplayReport {
        guard maxAttempts >= 1 else { throw ReplayUsageError("--max-attempts must be at least 1.") }
        let local = try localMock
        guard let target = explicitTarget ?? local?.url else {
            throw ReplayUsageError("give --to (the gateway to replay to) or --ready-file (a local `pushmock serve`).")
        }
        guard timeout > 0 else { throw ReplayUsageError("--timeout must be positive.") }
        guard timeout <= InputLimits.longestDurationSeconds else {
            throw ReplayUsageError("--timeout must be a number of seconds, \(InputLimits.durationRangeText).")
        }
        let query = try makeQuery()
        let (records, problems) = try JournalFiles.readAll(path: journal)
        if !quiet, !problems.isEmpty {
            FileHandle.standardError.write(Data("warning: \(problems.count) damaged line(s) in \(journal) skipped\n".utf8))
        }
        let selection = JournalReplayer(query: query).selection(from: records)
        guard !selection.isEmpty else {
            throw ReplayUsageError("\(journal) has no APNs, FCM or Expo send requests\(query.isEmpty ? "" : " matching the filters").")
        }
        let needsAPNs = selection.contains { $0.platform == .apns }
        let needsFCM = selection.contains { $0.platform == .fcm }
        let apns = needsAPNs ? try APNsSender(configuration: try apnsConfiguration(target: target, local: local)) : nil
        let fcm = needsFCM ? try FCMSender(configuration: try fcmConfiguration(target: target, local: local)) : nil
        let expo =
            selection.contains { $0.platform == .expo }
            ? try ExpoSender(configuration: try expoConfiguration(target: target, local: local)) : nil
        let replayer = JournalReplayer(apns: apns, fcm: fcm, expo: expo, query: query, fcmProject: project)
        let report = await replayer.replay(selection)
        await apns?.shutdown()
        await fcm?.shutdown()
        await expo?.shutdown()
        return report
    }

    private func makeQuery() throws -> RecordingQuery {
        if let platform = filter.platform, !platform.isPushService {
            throw ReplayUsageError("--platform must be apns, fcm or expo (was \(platform)).")
        }
        do {
            return try RecordingQuery(queryItems: filter.queryItems)
        } catch {
            throw ReplayUsageError(error.description)
        }
    }

    private var connection: ConnectionConfiguration {
        ConnectionConfiguration(maximumConnections: 1, requestTimeout: .milliseconds(Int64(timeout * 1000)))
    }

    /// The CA to trust: `--ca`, else the ready file's.
    private func trustRoots(_ local: LocalPushMock?) -> TrustRoots {
        (caPath ?? local?.caPath).map(TrustRoots.file) ?? .system
    }

    private func apnsConfiguration(target: String, local: LocalPushMock?) throws -> APNsSenderConfiguration {
        // The ready file's sample key when no credentials are given.
        guard let authentication = try apnsAuthentication() ?? local.map({ .token(try $0.sampleKey()) }) else {
            throw ReplayUsageError(
                "the selection has APNs requests: give --key/--key-id/--team-id, --cert or --p12 (or APNS_KEY, APNS_KEY_ID, APNS_TEAM_ID), or --platform fcm."
            )
        }
        return APNsSenderConfiguration(
            server: try APNsServer.custom(url: target, authority: authority),
            authentication: authentication,
            trustRoots: trustRoots(local),
            connection: connection,
            retry: RetryPolicy(maximumAttempts: maxAttempts)
        )
    }

    private func apnsAuthentication() throws -> APNsAuthentication? {
        if let pkcs12 {
            guard let password = pkcs12Password ?? Environment.value("APNS_P12_PASSWORD") else {
                throw ReplayUsageError("--p12 needs --p12-password (or APNS_P12_PASSWORD).")
            }
            return .certificate(try ClientIdentity.pkcs12(path: pkcs12, passphrase: password))
        }
        if let certificate {
            return .certificate(try ClientIdentity.pemFiles(certificate: certificate, privateKey: certificateKey ?? certificate))
        }
        guard let key = key ?? Environment.value("APNS_KEY") else { return nil }
        guard let keyID = keyID ?? Environment.value("APNS_KEY_ID"), let teamID = teamID ?? Environment.value("APNS_TEAM_ID") else {
            throw ReplayUsageError("a signing key needs --key-id and --team-id (or APNS_KEY_ID and APNS_TEAM_ID).")
        }
        let pem = try Environment.contents(ofInlineOrPath: key, inlinePrefix: "-----BEGIN")
        do {
            return .token(try APNsSigningKey(pem: pem, keyID: keyID, teamID: teamID))
        } catch {
            throw ReplayUsageError("\(key.hasPrefix("-----BEGIN") ? "APNS_KEY" : key) is not a P-256 private key (.p8): \(readable: error)")
        }
    }

    private func fcmConfiguration(target: String, local: LocalPushMock?) throws -> FCMSenderConfiguration {
        guard
            let source = serviceAccount ?? Environment.value("GOOGLE_APPLICATION_CREDENTIALS") ?? Environment.value("FCM_SERVICE_ACCOUNT")
                ?? local?.serviceAccountPath
        else {
            throw ReplayUsageError(
                "the selection has FCM requests: give --service-account (or GOOGLE_APPLICATION_CREDENTIALS), or --platform apns.")
        }
        let text = try Environment.contents(ofInlineOrPath: source, inlinePrefix: "{")
        let account: ServiceAccountJSON
        do {
            account = try ServiceAccountJSON.decode(from: Data(text.utf8))
        } catch {
            throw ReplayUsageError(
                "\(source.hasPrefix("{") ? "the service account JSON" : source) is not a service-account JSON: \(readable: error)")
        }
        var server = try SenderEndpoint(url: target)
        server.authority = authority
        return FCMSenderConfiguration(
            serviceAccount: account,
            server: server,
            tokenURI: tokenURI,
            trustRoots: trustRoots(local),
            connection: connection,
            retry: RetryPolicy(maximumAttempts: maxAttempts)
        )
    }
}

extension Replay {
    private func expoConfiguration(target: String, local: LocalPushMock?) throws -> ExpoSenderConfiguration {
        // --expo-to, else the ready file's Expo base URL (unless --to named another gateway), else --to.
        let base = expoTarget ?? (explicitTarget == nil ? local?.expoBaseURL : nil)
        var server = try SenderEndpoint(url: base ?? target)
        if base == nil { server.authority = authority }
        var configuration = ExpoSenderConfiguration(
            server: server,
            accessToken: expoAccessToken ?? Environment.value("EXPO_ACCESS_TOKEN"),
            trustRoots: trustRoots(local)
        )
        configuration.requestTimeout = .milliseconds(Int64(timeout * 1000))
        configuration.retry = RetryPolicy(maximumAttempts: maxAttempts)
        return configuration
    }
}

/// A problem with the command line or its inputs (exit status 2).
struct ReplayUsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
