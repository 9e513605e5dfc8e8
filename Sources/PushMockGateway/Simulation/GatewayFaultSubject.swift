import PushMockCore
import PushMockJSON
import PushMockSimulation

/// A request as fault rules see it. Everything derived from the body is computed on first
/// use, so rules that do not look at the body cost nothing extra.
final class GatewayFaultSubject: FaultSubject {
    let request: HTTPRequestMessage
    let platform: String
    let environment: String?
    let connectionID: UInt64

    init(request: HTTPRequestMessage, platform: String, environment: String?, connectionID: UInt64) {
        self.request = request
        self.platform = platform
        self.environment = environment
        self.connectionID = connectionID
    }

    var path: String { String(request.pathWithoutQuery) }

    func headerValues(named name: String) -> [String] {
        request.headers.values(named: name)
    }

    private(set) lazy var payload: JSONValue? = request.body.isEmpty ? nil : try? JSONValue(parsing: request.body)

    private(set) lazy var token: String? = {
        switch platform {
        case "apns":
            guard request.path.hasPrefix("/3/device/") else { return nil }
            return String(request.pathWithoutQuery.dropFirst(10))
        case "fcm":
            return payload?["message"]?["token"]?.stringValue ?? payload?["message"]?["fid"]?.stringValue
        default:
            return nil
        }
    }()

    private(set) lazy var topic: String? = {
        switch platform {
        case "apns": return request.headers.first(.apnsTopic)
        case "fcm": return payload?["message"]?["topic"]?.stringValue
        case "iid":
            guard let to = payload?["to"]?.stringValue else { return nil }
            return to.hasPrefix("/topics/") ? String(to.dropFirst(8)) : to
        default: return nil
        }
    }()

    private(set) lazy var project: String? = platform == "fcm" ? FCMService.project(inPath: request.pathWithoutQuery) : nil
}
