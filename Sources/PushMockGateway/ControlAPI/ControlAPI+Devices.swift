import Foundation
import PushMockCore
import PushMockJSON
import PushMockSimulation

/// `/_pushmock/devices…`: the simulated devices behind the tokens.
///
/// | Method | Path | |
/// |---|---|---|
/// | GET | /devices | every device (summary); `service`, `connectivity` filters |
/// | DELETE | /devices | forget every device |
/// | GET | /devices/{service}/{token} (or /devices/{token}) | one device: notifications and timeline |
/// | POST, PATCH | /devices/{service}/{token} | `{"connectivity": "online"\|"idle"\|"offline", "permission": "granted"\|"provisional"\|"denied"}` (either or both) |
/// | DELETE | /devices/{service}/{token} | forget it |
/// | POST | /devices/{service}/{token}/notifications/{id}/open\|dismiss\|action\|display | the user engages (`action`: `{"action": "TAKEN"}`) |
extension ControlAPI {
    func deviceRoutes(_ request: ControlRequest) throws -> HTTPResponseMessage? {
        let now = state.clock.now()
        if request.matches("GET", "devices") {
            let service = try request.query["service"].map(Self.service)
            let connectivity = try request.query["connectivity"].map { text -> Connectivity in
                guard let value = Connectivity(rawValue: text) else {
                    throw ControlAPIError(400, "connectivity must be online, idle or offline")
                }
                return value
            }
            let devices = state.simulatedDevices.devices(now: now).filter { device in
                (service == nil || device.address.service == service) && (connectivity == nil || device.connectivity == connectivity)
            }
            return try Self.encoded(devices.map { DeviceReport($0, detailed: false) }, key: "devices")
        }
        if request.matches("DELETE", "devices") {
            return Self.json(status: 200, ["removed": JSONValue(state.simulatedDevices.removeAll())])
        }
        if request.segments.count == 6, request.segments[3] == "notifications" {
            return try engagementCommand(request, now: now)
        }
        guard request.segments.count == 2 || request.segments.count == 3 else { return nil }
        let address = try deviceAddress(request.segments.dropFirst())
        switch request.method {
        case "GET":
            guard let device = state.simulatedDevices.device(address, now: now) else {
                throw ControlAPIError(
                    404, "no simulated device \(address): it appears with its first notification, or set its connectivity")
            }
            return try Self.encoded(DeviceReport(device, detailed: true))
        case "POST", "PATCH":
            guard !request.body.isEmpty else { throw ControlAPIError(400, "give the connectivity: {\"connectivity\": \"offline\"}") }
            let change = try JSONDecoder().decode(DeviceChange.self, from: Data(request.body))
            guard change.connectivity != nil || change.permission != nil else {
                throw ControlAPIError(400, "give the connectivity and/or the permission: {\"connectivity\": \"offline\"}")
            }
            let policy = state.storagePolicy(for: address)
            var device: SimulatedDevice?
            if let permission = change.permission {
                device = state.simulatedDevices.setPermission(permission, for: address, policy: policy, now: now)
            }
            if let connectivity = change.connectivity {
                device = state.simulatedDevices.setConnectivity(connectivity, for: address, policy: policy, now: now)
            }
            guard let device else { return nil }
            return try Self.encoded(DeviceReport(device, detailed: true))
        case "DELETE":
            guard state.simulatedDevices.remove(address) else { throw ControlAPIError(404, "no simulated device \(address)") }
            return Self.json(status: 200, ["removed": JSONValue(address.description)])
        default:
            return nil
        }
    }

    /// `POST /devices/{service}/{token}/notifications/{id}/{verb}`: the user engages.
    private func engagementCommand(_ request: ControlRequest, now: Timestamp) throws -> HTTPResponseMessage? {
        guard request.method == "POST" else { return nil }
        let address = try deviceAddress(request.segments[1...2])
        let id = request.segments[4]
        let engagement: Engagement
        switch request.segments[5] {
        case "open": engagement = .opened
        case "dismiss": engagement = .dismissed
        case "display": engagement = .displayed
        case "action":
            let body = request.body.isEmpty ? nil : try JSONDecoder().decode(ActionChoice.self, from: Data(request.body))
            guard let action = body?.action, !action.isEmpty else {
                throw ControlAPIError(400, "name the action: {\"action\": \"TAKEN\"} (the category's action identifier)")
            }
            if let refusal = state.undeclaredActionRefusal(action, notificationID: id, on: address, now: now) {
                throw ControlAPIError(refusal.status, refusal.message)
            }
            engagement = .acted(actionID: action)
        default:
            throw ControlAPIError(404, "engagements are open, dismiss, action and display, not \(request.segments[5])")
        }
        let result: (device: SimulatedDevice, notification: DeviceNotification)
        do {
            result = try state.simulatedDevices.engage(engagement, notificationID: id, on: address, now: now)
        } catch {
            throw ControlAPIError(error.status, error.message)
        }
        let report = DeviceReport(result.device, detailed: true)
        return try Self.encoded(report.notifications?.last { $0.id == id }, key: "notification")
    }

    /// `{service}/{token}`, or a bare token: APNs when it is hex and known as an APNs device,
    /// else FCM when known there, else by its shape.
    func deviceAddress(_ parts: ArraySlice<String>) throws -> DeviceAddress {
        if parts.count == 2 {
            let service = try Self.service(parts[parts.startIndex])
            let token = parts[parts.startIndex + 1]
            return DeviceAddress(service: service, token: try Self.checkedToken(token, of: service))
        }
        let token = parts[parts.startIndex]
        if ExpoPushToken(token, syntax: .sdk) != nil { return DeviceAddress(service: .expo, token: token) }
        let apns = DeviceAddress(service: .apns, token: token)
        let fcm = DeviceAddress(service: .fcm, token: token)
        let now = state.clock.now()
        let isHex = APNsDeviceTokenFormat.variable.accepts(token.utf8)
        if isHex, state.simulatedDevices.device(apns, now: now) != nil { return apns }
        if state.simulatedDevices.device(fcm, now: now) != nil { return fcm }
        return isHex ? apns : fcm
    }

    /// `token` as the service's own endpoint checks it, so no device can exist for a token
    /// this refuses (FCM's lenient rule admits whatever its strict one does).
    static func checkedToken(_ token: String, of service: PushService) throws -> String {
        if service == .apns { return try apnsToken(token).rawValue }
        if service == .fcm { return try fcmToken(token).rawValue }
        return try ExpoTokenDefinition.checkToken(token).rawValue
    }

    static func service(_ text: String) throws -> PushService {
        guard let service = PushService(rawValue: text) else {
            throw ControlAPIError(400, "service must be apns, fcm or expo, not \(text)")
        }
        return service
    }
}

/// The body of a device change.
struct DeviceChange: Decodable {
    var connectivity: Connectivity?
    var permission: NotificationPermission?
}

/// The body of an action engagement.
struct ActionChoice: Decodable {
    var action: String?
}
