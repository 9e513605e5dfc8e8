import ArgumentParser
import Foundation
import PushMockControl
import PushMockCore

/// Where the running gateway is, for the commands that talk to its control API.
struct ControlOptions: ParsableArguments {
    @Option(
        name: .customLong("server"),
        help: ArgumentHelp(
            "The gateway's control address: http://host:port (cleartext port) or https://host:port.",
            discussion: "Default: $PUSHMOCK_URL, else http://127.0.0.1:2198 (the cleartext port of `pushmock serve`)."
        )
    )
    var server: String?

    @Option(name: .customLong("ca"), help: "CA to trust for an https --server (default: certs/ca.pem).")
    var certificateAuthority: String?

    @Flag(name: .customLong("json"), help: "Print the gateway's JSON answer instead of text.")
    var json = false

    @Option(
        name: .customLong("timeout"),
        help: ArgumentHelp(
            "How long to wait for each answer of the gateway: 30s, 2m, 500ms, or seconds.",
            discussion: "Default: $PUSHMOCK_TIMEOUT, else 10s. A long poll (--wait, expect --within) waits this much longer."
        )
    )
    var timeout: String?

    /// Each request's timeout when neither `--timeout` nor `$PUSHMOCK_TIMEOUT` says otherwise.
    static let defaultTimeout = Duration.seconds(10)

    /// `--timeout`, else `$PUSHMOCK_TIMEOUT`, else ``defaultTimeout``: a CI machine under load
    /// may answer slower than a laptop, and only the user knows how much slower is fine.
    func requestTimeout() throws -> Duration {
        let (text, source) =
            timeout.map { ($0, "--timeout") }
            ?? ProcessInfo.processInfo.environment["PUSHMOCK_TIMEOUT"].map { ($0, "PUSHMOCK_TIMEOUT") }
            ?? (nil, "")
        guard let text else { return Self.defaultTimeout }
        guard let duration = DurationText.parse(text), duration > .zero else {
            throw ValidationError("\(source) takes a positive duration such as 30s, 2m or 500ms, not \"\(text)\"")
        }
        return duration
    }

    /// A client for the gateway; each request may take ``requestTimeout()`` plus `waiting`
    /// (how long a long poll asks the gateway to hold it).
    func makeClient(waiting: Duration = .zero) throws -> PushMockControlClient {
        let url = server ?? ProcessInfo.processInfo.environment["PUSHMOCK_URL"] ?? "http://127.0.0.1:2198"
        let timeout = try requestTimeout() + waiting
        do {
            return PushMockControlClient(endpoint: try .init(url: url, certificateAuthorityPath: certificateAuthority), timeout: timeout)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Prints the answer as indented JSON.
    func printJSON(_ response: ControlResponse) {
        let data = Data(response.body)
        if let object = try? JSONSerialization.jsonObject(with: data),
            let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        {
            print(String(decoding: pretty, as: UTF8.self))
        } else {
            print(response.text)
        }
    }
}

/// Runs a control command: any failure becomes one readable line and exit status 1.
func runControl(_ options: ControlOptions, _ body: (PushMockControlClient) async throws -> Void) async throws {
    let client = try options.makeClient()
    do {
        try await body(client)
        await client.close()
    } catch let error as ControlClientError {
        await client.close()
        printError("pushmock: \(error.description)")
        throw ExitCode.failure
    } catch let error as TimeTextError {
        await client.close()
        throw ValidationError(error.description)
    }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// JSON for a request body.
func jsonBody(_ object: [String: Any]) -> [UInt8] {
    Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8))
}

func jsonBody(_ value: some Encodable) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return Array(try encoder.encode(value))
}
