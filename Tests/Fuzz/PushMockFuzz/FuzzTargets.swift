// libFuzzer entry points, one per input surface of the gateway. Built only by `scripts/fuzz`
// (Package.swift adds this target when PUSHMOCK_FUZZ=1), with
// `-sanitize=fuzzer,address -parse-as-library`: libFuzzer supplies `main` and calls
// `LLVMFuzzerTestOneInput` for every input; the target it exercises is chosen by the
// PUSHMOCK_FUZZ_TARGET environment variable (one binary, one link, many targets).
//
// A target must never crash, hang or trap on any input: every failure here is a bug.

import CLibFuzzer
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import PushMockAuth
import PushMockCore
import PushMockJSON
import PushMockRecording

@testable import PushMockGateway
@testable import PushMockTransport

/// The entry points, by the name `scripts/fuzz` uses (also the corpus directory's name).
enum FuzzTarget: String, CaseIterable {
    case json
    case apnsRequest = "apns-request"
    case fcmMessage = "fcm-message"
    case expoMessage = "expo-message"
    case providerToken = "provider-token"
    case configFile = "config-file"
    case controlAPI = "control-api"
    case http2Server = "http2-server"
    case journalLine = "journal-line"
    case gatewayRequest = "gateway-request"

    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["PUSHMOCK_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            fatalError("set PUSHMOCK_FUZZ_TARGET to one of: \(names)")
        }
        return target
    }()

    func run(_ bytes: [UInt8]) {
        switch self {
        case .json: FuzzJSON.run(bytes)
        case .apnsRequest: FuzzAPNsRequest.run(bytes)
        case .fcmMessage: _ = FCMMessageValidator.validate(body: bytes)
        case .expoMessage: FuzzExpo.run(bytes)
        case .providerToken: FuzzProviderToken.run(bytes)
        case .configFile: FuzzConfigurationFile.run(bytes)
        case .controlAPI: FuzzControlAPI.run(bytes)
        case .http2Server: FuzzHTTP2Server.run(bytes)
        case .journalLine: _ = try? ExchangeRecord.decode(jsonLine: bytes)
        case .gatewayRequest: FuzzGatewayRequest.run(bytes)
        }
    }
}

/// Called by libFuzzer for every input.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzTarget.selected.run(bytes)
    return 0
}

/// SwiftPM links executables with `--defsym main=PushMockFuzz_main` (so tests can link them),
/// and `-parse-as-library` emits no such symbol: the link fails without it. Whichever `main`
/// the linker keeps — this one or libFuzzer's own — the run ends up in libFuzzer's driver with
/// the command line unchanged.
@_cdecl("PushMockFuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    _ = FuzzTarget.selected  // fail early on a missing PUSHMOCK_FUZZ_TARGET
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
}

/// Splits `bytes` at the first newline: a short "head" line (method and path, a header, a
/// token) and the rest (a body).
func splitFirstLine(_ bytes: [UInt8]) -> (head: String, rest: [UInt8]) {
    guard let newline = bytes.firstIndex(of: 0x0A) else { return (String(decoding: bytes, as: UTF8.self), []) }
    return (String(decoding: bytes[..<newline], as: UTF8.self), Array(bytes[(newline + 1)...]))
}

enum FuzzJSON {
    static func run(_ bytes: [UInt8]) {
        let scan = JSONScanner.scan(bytes)
        let compacted = JSONCompactor.compacted(bytes)
        let parsed = try? JSONValue(parsing: bytes)
        // The scanner and the parser must agree on validity, and a compacted valid document
        // must parse to the same value.
        if scan.isValid != (parsed != nil) {
            fatalError("scanner (\(scan.isValid)) and parser (\(parsed != nil)) disagree")
        }
        if let parsed {
            guard let again = try? JSONValue(parsing: compacted), again == parsed else {
                fatalError("compacting changed the value")
            }
            var writer = JSONWriter()
            parsed.write(to: &writer)
            guard let reparsed = try? JSONValue(parsing: writer.bytes), reparsed == parsed else {
                fatalError("serialising changed the value")
            }
        }
    }
}

enum FuzzAPNsRequest {
    /// Input: "METHOD PATH" on the first line, then `name: value` header lines, a blank line,
    /// then the payload.
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.split(separator: "\n\n", maxSplits: 1, omittingEmptySubsequences: false)
        var lines = (parts.first ?? "").split(separator: "\n", omittingEmptySubsequences: false)
        let requestLine = lines.isEmpty ? "" : lines.removeFirst()
        let methodAndPath = requestLine.split(separator: " ", maxSplits: 1)
        var headers = HTTPHeaderList()
        for line in lines {
            let pair = line.split(separator: ":", maxSplits: 1)
            headers.append(
                name: String(pair.first ?? "").lowercased(),
                value: pair.count > 1 ? String(pair[1].drop(while: { $0 == " " })) : ""
            )
        }
        let body = parts.count > 1 ? Array(parts[1].utf8) : []
        for format in [APNsDeviceTokenFormat.variable, .strict64] {
            let result = APNsRequestRules.parse(
                method: methodAndPath.first.map(String.init) ?? "",
                path: methodAndPath.count > 1 ? String(methodAndPath[1]) : "",
                headers: headers,
                tokenFormat: format
            )
            if case .success(let request) = result {
                _ = APNsRequestRules.checkTopic(request.headers.topic ?? "", pushType: request.headers.pushType ?? .alert)
                _ = APNsRequestRules.checkPayload(byteCount: body.count, pushType: request.headers.pushType ?? .alert)
            }
        }
        _ = APNsRequestRules.parseExpiration(body)
    }
}

enum FuzzExpo {
    static func run(_ bytes: [UInt8]) {
        if let request = try? ExpoPushRequestParser.parse(body: bytes) {
            _ = request
        }
        _ = try? ExpoReceiptsRequestParser.parse(body: bytes)
    }
}

enum FuzzProviderToken {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let jws = try? CompactJWS(parsing: text) {
            _ = try? jws.header()
        }
        if let token = try? APNsProviderToken(parsing: text) {
            _ = token.isSigned(by: key.publicKey)
        }
        _ = ExchangeRecorder.undecodedAuth("bearer " + text)
        _ = ExchangeRecorder.undecodedAuth(text)
    }

    static let key = P256SigningKeyHolder.key
}

/// One key for every run: generating keys per input would dominate the time.
enum P256SigningKeyHolder {
    static let key = APNsSigningKey.generate(keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
}

enum FuzzConfigurationFile {
    static let path: String = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("config.json").path
    }()

    static func run(_ bytes: [UInt8]) {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return }
        guard let file = try? ConfigurationFile.load(path: path) else { return }
        var configuration = GatewayConfiguration()
        file.apply(to: &configuration)
        let state = GatewayState(recordings: RecordingStore(configuration: .init(capacity: 4)), journal: nil)
        try? file.register(in: state)
    }
}

enum FuzzControlAPI {
    /// Input: "METHOD /path?query" on the first line, the body after it. The path is taken
    /// under `/_pushmock/`. Requests that wait (long polls) are not run.
    static func run(_ bytes: [UInt8]) {
        let (head, body) = splitFirstLine(bytes)
        let parts = head.split(separator: " ", maxSplits: 1)
        let method = parts.first.map(String.init) ?? "GET"
        let path = "/_pushmock/" + (parts.count > 1 ? parts[1].drop(while: { $0 == "/" }) : "")
        let state = GatewayState(recordings: RecordingStore(configuration: .init(capacity: 16)), journal: nil)
        let api = ControlAPI(state: state, files: ControlFileAccess(directories: [])) {}
        let request = HTTPRequestMessage(
            method: method, path: path, headers: HTTPHeaderList([("content-type", "application/json")]), body: body)
        _ = api.handle(request)
    }
}

/// Whole requests through the gateway's pipeline, as one cleartext HTTP/2 connection's
/// responder sees them: routing, every endpoint (APNs, FCM and its topic subscriptions, OAuth,
/// IID, Expo, the control API, the inbox), recording and device simulation — no sockets.
enum FuzzGatewayRequest {
    static let loop = EmbeddedEventLoop()

    /// Input: "METHOD /path?query" on the first line, then `name: value` header lines up to an
    /// empty line, then the body. Credentials are not checked (`--auth none`), so requests reach
    /// validation and state; replies that wait (long polls) are not run.
    static func run(_ bytes: [UInt8]) {
        let (head, rest) = splitFirstLine(bytes)
        let parts = head.split(separator: " ", maxSplits: 1)
        let method = parts.first.map(String.init) ?? "GET"
        let path = parts.count > 1 ? String(parts[1]) : "/"
        var headers = HTTPHeaderList()
        var remainder = rest
        while true {
            let (line, after) = splitFirstLine(remainder)
            guard !line.isEmpty, let colon = line.firstIndex(of: ":"), colon != line.startIndex else { break }
            headers.append(name: line[..<colon].lowercased(), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            remainder = after
        }
        var apns = APNsOptions()
        apns.authentication = .none
        let state = GatewayState(
            apnsOptions: apns, fcmOptions: FCMOptions(authentication: .none), expoOptions: ExpoOptions(authentication: .none),
            recordings: RecordingStore(configuration: .init(capacity: 16)), journal: nil)
        let api = ControlAPI(state: state, files: ControlFileAccess(directories: [])) {}
        let context = GatewayConnectionContext(
            transport: .h2c, isTLS: false, servesInbox: true, alpn: nil, remoteAddress: "127.0.0.1:1", listenerEnvironment: nil,
            apnsAuthenticator: APNsConnectionAuthenticator(
                keys: state.apnsKeys, options: apns, credentialClock: state.credentialClock, certificate: nil, certificateProblem: nil),
            clientCertificateSubject: nil, advertisedMaxStreams: 1000)
        let connection = GatewayConnection(context: context, state: state, controlAPI: api, eventLoop: loop, logger: Logger(label: "fuzz"))
        var request = HTTPRequestMessage(method: method, path: path, headers: headers, body: remainder)
        request.authority = "localhost"
        _ = connection.respond(to: [request])
        connection.connectionClosed()
    }
}

enum FuzzHTTP2Server {
    final class Responder: HTTPConnectionResponder {
        func respond(to requests: consuming [HTTPRequestMessage]) -> HTTPReplyBatch {
            .immediate(
                requests.map { request in
                    switch request.path.utf8.count % 3 {
                    case 0: return .respond(HTTPResponseMessage(status: 200))
                    case 1: return .respond(HTTPResponseMessage(status: 400, body: Array(#"{"reason":"BadDeviceToken"}"#.utf8)))
                    default: return HTTPReply(.resetStream(.refusedStream))
                    }
                }
            )
        }

        func connectionClosed() {}
    }

    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// Input: the bytes a client sends after the connection preface, delivered in chunks
    /// (the first byte of the input picks the chunk size, so frame boundaries fall anywhere).
    static func run(_ bytes: [UInt8]) {
        let channel = EmbeddedChannel()
        let handler = HTTP2ServerHandler(
            configuration: HTTP2ServerConfiguration(maximumStoredBodyBytes: 4096),
            responder: Responder()
        )
        guard (try? channel.pipeline.syncOperations.addHandler(handler)) != nil,
            let address = try? SocketAddress(ipAddress: "127.0.0.1", port: 2197),
            (try? channel.connect(to: address).wait()) != nil
        else { return }
        let chunkSize = Int(bytes.first ?? 0) + 1
        var input = preface
        input.append(contentsOf: bytes.dropFirst())
        var offset = 0
        while offset < input.count, channel.isActive {
            let end = min(offset + chunkSize, input.count)
            var buffer = channel.allocator.buffer(capacity: end - offset)
            buffer.writeBytes(input[offset..<end])
            _ = try? channel.writeInbound(buffer)
            while (try? channel.readOutbound(as: ByteBuffer.self)) ?? nil != nil {}
            offset = end
        }
        _ = try? channel.finish(acceptAlreadyClosed: true)
    }
}
