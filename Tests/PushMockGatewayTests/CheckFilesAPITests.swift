import Foundation
import PushMockControl
import PushMockGateway
import PushMockTesting
import Testing

/// A directory tree for one case: `allowed/` is the gateway's only `--checks-dir`; `outside/`
/// holds the same files where the control API must not read them.
private struct Sandbox {
    let root: String
    var allowed: String { root + "/allowed" }
    var outside: String { root + "/outside" }

    static let routes = #"{"version":1,"scheme":"loop","routes":[{"pattern":"/settings","screen":"/settings"}]}"#
    static let policy = #"{"version":1}"#

    init() throws {
        let manager = FileManager.default
        root = NSTemporaryDirectory() + "pushmock-checks-dir-\(UUID().uuidString)"
        for directory in [root + "/allowed", root + "/outside"] {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(Self.routes.utf8).write(to: URL(fileURLWithPath: directory + "/routes.json"))
            try Data(Self.policy.utf8).write(to: URL(fileURLWithPath: directory + "/policy.json"))
        }
        for name in ["routes.json", "policy.json"] {
            // A link out of the allowed directory, one within it, and a linked directory.
            try manager.createSymbolicLink(atPath: allowed + "/out-" + name, withDestinationPath: outside + "/" + name)
            try manager.createSymbolicLink(atPath: allowed + "/in-" + name, withDestinationPath: allowed + "/" + name)
            // Over the 10 MiB limit (sparse: nothing is written).
            let large = allowed + "/large-" + name
            _ = manager.createFile(atPath: large, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: large))
            try handle.truncate(atOffset: UInt64(ControlFileAccess.maximumFileBytes + 1))
            try handle.close()
        }
        try manager.createSymbolicLink(atPath: allowed + "/elsewhere", withDestinationPath: outside)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}

/// Where a request's file lies, and what the control API must answer.
enum CheckFileCase: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case allowedFile
    case symbolicLinkWithinAllowed
    case missingWithinAllowed
    case dotDotOutOfAllowed
    case absoluteOutside
    case absoluteOutsideMissing
    case systemFile
    case symbolicLinkToOutside
    case symbolicLinkedDirectoryToOutside
    case overSizeLimit

    var testDescription: String { rawValue }

    fileprivate func path(for file: String, in sandbox: Sandbox) -> String {
        switch self {
        case .allowedFile: sandbox.allowed + "/" + file
        case .symbolicLinkWithinAllowed: sandbox.allowed + "/in-" + file
        case .missingWithinAllowed: sandbox.allowed + "/missing-" + file
        case .dotDotOutOfAllowed: sandbox.allowed + "/../outside/" + file
        case .absoluteOutside: sandbox.outside + "/" + file
        case .absoluteOutsideMissing: sandbox.outside + "/missing-" + file
        case .systemFile: "/etc/passwd"
        case .symbolicLinkToOutside: sandbox.allowed + "/out-" + file
        case .symbolicLinkedDirectoryToOutside: sandbox.allowed + "/elsewhere/" + file
        case .overSizeLimit: sandbox.allowed + "/large-" + file
        }
    }

    /// 200: read and checked (nothing recorded, so clean); 400: inside but unreadable (as a
    /// missing file always was); 403: outside, whether or not it exists; 413: too large.
    var status: Int {
        switch self {
        case .allowedFile, .symbolicLinkWithinAllowed: 200
        case .missingWithinAllowed: 400
        case .dotDotOutOfAllowed, .absoluteOutside, .absoluteOutsideMissing, .systemFile, .symbolicLinkToOutside,
            .symbolicLinkedDirectoryToOutside:
            403
        case .overSizeLimit: 413
        }
    }
}

@Suite("Files named in control-API bodies are read only under --checks-dir")
struct CheckFilesAPITests {
    @Test("routesFile, policyFile and an expectation's deepLink.routes over a real socket", arguments: CheckFileCase.allCases)
    func fileAccess(_ situation: CheckFileCase) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try await withPushMock(configure: { $0.checksDirectories = [sandbox.allowed] }) { mock in
            let control = try mock.controlClient()
            let routes = situation.path(for: "routes.json", in: sandbox)
            let policy = situation.path(for: "policy.json", in: sandbox)
            let requests: [(endpoint: String, body: String)] = [
                ("checks/links", #"{"routesFile":"\#(routes)"}"#),
                ("checks/policy", #"{"policyFile":"\#(policy)"}"#),
                ("expectations", #"{"query":{"token":"nobody"},"count":0,"deepLink":{"routes":"\#(routes)","screen":"/settings"}}"#),
            ]
            for (endpoint, body) in requests {
                let answer = try await control.request("POST", endpoint, json: Array(body.utf8))
                #expect(answer.status == situation.status, "\(endpoint): \(answer.text)")
                switch situation.status {
                case 403:
                    let message = answer.errorMessage ?? ""
                    #expect(message.contains("--checks-dir"), "\(endpoint): \(answer.text)")
                    // The same words whether or not the file exists: nothing to probe with.
                    #expect(!message.contains("cannot read") && !message.contains("No such"), "\(endpoint): \(message)")
                case 413:
                    #expect(
                        answer.errorMessage?.contains("at most \(ControlFileAccess.maximumFileBytes) bytes") == true,
                        "\(endpoint): \(answer.text)")
                case 400:
                    #expect(answer.errorMessage?.contains("cannot read") == true, "\(endpoint): \(answer.text)")
                default:
                    break
                }
            }
            await control.close()
        }
    }

    @Test("the default is the working directory's Recordings/; the same path outside is refused either way")
    func defaults() throws {
        #expect(GatewayConfiguration().checksDirectories == ["Recordings"])
        let access = ControlFileAccess(directories: ["Recordings"])
        let outside = access.readResult("/etc/passwd")
        let missing = access.readResult("/etc/no-such-file-\(UUID().uuidString)")
        #expect(outside?.status == 403)
        #expect(missing?.status == 403)
        #expect(
            outside?.message.replacing("/etc/passwd", with: "X")
                == missing?.message.replacing(#/\/etc\/no-such-file-[-0-9A-F]+/#, with: "X"))
    }
}

extension ControlFileAccess {
    /// The refusal, if any.
    fileprivate func readResult(_ path: String) -> ControlAPIError? {
        do {
            _ = try read(path, member: "routesFile")
            return nil
        } catch {
            return error
        }
    }
}
