import Foundation
import PushMockTestSupport
import Testing

/// The interpreter of the virtual environment `scripts/test` prepares (`prometheus_client` and
/// the Expo SDK from PyPI); `PUSHMOCK_PYTHON` overrides it.
var venvPython: String {
    if let override = ProcessInfo.processInfo.environment["PUSHMOCK_PYTHON"] { return override }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    return root.appendingPathComponent(".build/python-venv/bin/python3").path
}

/// A local HTTP receiver for webhooks: Python's `http.server`, started as a process. It logs
/// every POST as a JSON line (path, headers, body, whether the HMAC-SHA256 signature of the
/// body — computed by Python's `hmac` with `secret` — matches the header), answers 500 to the
/// first `failFirst` requests and 200 after, each after `delaySeconds`. With `tls` it serves
/// HTTPS with that certificate and key (Python's `ssl`) and logs the TLS version of each request.
final class WebhookReceiver: Sendable {
    static let script = #"""
        import hashlib, hmac, http.server, json, ssl, sys, threading, time
        port_file, log_file, secret, fail_first, delay = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
        certificate, key = (sys.argv[6], sys.argv[7]) if len(sys.argv) > 7 else (None, None)
        lock = threading.Lock()
        seen = [0]
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                with lock:
                    seen[0] += 1
                    number = seen[0]
                time.sleep(delay)
                expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
                entry = {"n": number, "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                         "body": json.loads(body), "signatureValid": hmac.compare_digest(expected, self.headers.get("x-pushmock-signature-256", "")),
                         "tls": self.connection.version() if isinstance(self.connection, ssl.SSLSocket) else None}
                with lock:
                    with open(log_file, "a") as log:
                        log.write(json.dumps(entry) + "\n")
                status = 500 if number <= fail_first else 200
                answer = b"try again" if status == 500 else b"thanks"
                self.send_response(status)
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if certificate:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(certificate, key)
            # A client that refuses the certificate fails the handshake in accept(): an OSError the
            # server drops, and it keeps serving.
            server.socket = context.wrap_socket(server.socket, server_side=True)
        with open(port_file + ".tmp", "w") as f:
            f.write(str(server.server_address[1]))
        import os
        os.rename(port_file + ".tmp", port_file)
        server.serve_forever()
        """#

    let port: Int
    private let process: ChildProcess
    private let logPath: String
    /// Holds the port file and the request log; removed by ``stop()``.
    private let directory: String

    let isTLS: Bool

    init(secret: String = "", failFirst: Int = 0, delaySeconds: Double = 0, tls: (certificate: String, key: String)? = nil) async throws {
        isTLS = tls != nil
        let directory = NSTemporaryDirectory() + "pushmock-receiver-\(UUID().uuidString)"
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let portFile = directory + "/port"
        logPath = directory + "/requests.jsonl"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process = try ChildProcess.spawn(
            "/usr/bin/python3",
            ["-c", Self.script, portFile, logPath, secret, String(failFirst), String(delaySeconds)]
                + (tls.map { [$0.certificate, $0.key] } ?? []),
            output: .discard)
        var port: Int?
        for _ in 0..<600 {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let value = Int(text) {
                port = value
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard let port else {
            process.terminate(SIGKILL)
            process.wait()
            try? FileManager.default.removeItem(atPath: directory)
            throw ReceiverError(description: "the Python receiver did not start")
        }
        self.port = port
    }

    var url: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)/hooks/push" }

    /// The requests received so far, in order.
    func requests() throws -> [[String: Any]] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { line in
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
        }
    }

    /// Waits (generously: a loaded machine) until at least `count` requests arrived.
    func waitForRequests(_ count: Int, timeout: Duration = .seconds(60)) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let seen = try requests()
            if seen.count >= count { return seen }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try requests()
    }

    /// SIGKILL: the child may inherit a mask that blocks SIGTERM from the test runner's threads.
    func stop() {
        process.terminate(SIGKILL)
        process.wait()
        try? FileManager.default.removeItem(atPath: directory)
    }

    struct ReceiverError: Error, CustomStringConvertible {
        var description: String
    }
}

/// `GET /metrics` over the cleartext listener with curl, parsed by `prometheus_client`'s text
/// parser (an implementation independent of swift-prometheus). Returns every sample as
/// `name{label="value",…}` (labels sorted, empty ones kept) → value.
func scrapeMetrics(port: Int) async throws -> [String: Double] {
    let fetched = try await run("/usr/bin/curl", ["-sS", "--fail", "http://127.0.0.1:\(port)/metrics"])
    try #require(fetched.status == 0, "curl: \(fetched.error)")
    let directory = NSTemporaryDirectory() + "pushmock-metrics-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let textPath = directory + "/metrics.txt"
    try fetched.output.write(toFile: textPath, atomically: true, encoding: .utf8)
    let parser = #"""
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        samples = {}
        for family in text_string_to_metric_families(open(sys.argv[1]).read()):
            for sample in family.samples:
                labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
                samples[sample.name + "{" + labels + "}"] = sample.value
        print(json.dumps(samples))
        """#
    let parsed = try await run(venvPython, ["-c", parser, textPath])
    try #require(parsed.status == 0, "prometheus_client could not parse /metrics: \(parsed.error)\n\(fetched.output.prefix(2000))")
    let object = try JSONSerialization.jsonObject(with: Data(parsed.output.utf8)) as? [String: Double] ?? [:]
    try? FileManager.default.removeItem(atPath: directory)
    return object
}
