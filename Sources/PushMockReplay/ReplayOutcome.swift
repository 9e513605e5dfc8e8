import PushMockCore
import PushMockJSON
public import PushMockRecording
public import PushMockSender

/// An outcome reduced to what replay compares: its class, HTTP status and reason (APNs
/// `reason`, FCM `FcmError.errorCode` or Google `status`). Built the same way from a recorded
/// response and from a fresh ``SendResult``, so the two can be compared 1:1.
public struct ReplayOutcome: Sendable, Hashable, CustomStringConvertible {
    /// accepted, rejected, invalid-token or failed.
    public var kind: SendOutcome.Kind
    /// The HTTP status; `nil` when no HTTP answer came (reset, GOAWAY, closed, timeout).
    public var status: Int?
    /// The reason; `nil` for accepted.
    public var reason: String?

    public init(kind: SendOutcome.Kind, status: Int?, reason: String?) {
        self.kind = kind
        self.status = status
        self.reason = reason
    }

    /// The outcome a sender reported.
    public init(_ outcome: SendOutcome) {
        switch outcome {
        case .accepted: self.init(kind: .accepted, status: 200, reason: nil)
        case .rejected(let rejection): self.init(kind: .rejected, status: rejection.status, reason: rejection.reason)
        case .tokenInvalid(let gone): self.init(kind: .tokenInvalid, status: gone.status, reason: gone.reason)
        case .failed(let failure): self.init(kind: .failed, status: failure.status, reason: failure.reason)
        }
    }

    /// What one Expo request came to when sent again.
    public init(_ result: ExpoRequestResult) {
        switch result.outcome {
        case .tickets(let tickets):
            self.init(
                expoTickets: tickets.map { ticket in
                    switch ticket {
                    case .ok: return nil
                    case .error(let code, _), .requestFailed(let code, _): return code
                    }
                })
        case .requestError(let status, let code, _):
            self.init(kind: Self.defaultRetryableStatuses.contains(status) ? .failed : .rejected, status: status, reason: code)
        case .failed(let code, _):
            self.init(kind: .failed, status: nil, reason: code)
        }
    }

    /// An Expo send answered 200: accepted when every ticket is ok; otherwise the reason lists
    /// every ticket in order (`ok, DeviceNotRegistered, ok`), so two sends compare ticket by
    /// ticket, and the class is `invalid-token` when every error is `DeviceNotRegistered`.
    /// `nil` stands for an ok ticket.
    init(expoTickets errors: [String?]) {
        let failures = errors.compactMap { $0 }
        guard !failures.isEmpty else {
            self.init(kind: .accepted, status: 200, reason: nil)
            return
        }
        let kind: SendOutcome.Kind = failures.allSatisfy { $0 == "DeviceNotRegistered" } ? .tokenInvalid : .rejected
        self.init(kind: kind, status: 200, reason: errors.map { $0 ?? "ok" }.joined(separator: ", "))
    }

    static let defaultRetryableStatuses: Set<Int> = [429, 500, 503]

    /// The outcome a recorded exchange had, classified by the sender's rules
    /// (`docs/sender.md`, "Outcome classes") with the given retryable statuses.
    public init(recorded record: ExchangeRecord, retryableStatuses: Set<Int> = [429, 500, 503]) {
        let status = record.response.status
        let body = record.response.body.jsonValue
        guard status != 0 else {
            // No HTTP answer reached the client (an injected reset, GOAWAY or close).
            self.init(kind: .failed, status: nil, reason: record.response.reason)
            return
        }
        if record.platform == .expo {
            if status == 200 {
                let data = body?["data"]
                let tickets = data?.arrayValue ?? (data.map { [$0] } ?? [])
                self.init(
                    expoTickets: tickets.map { ticket in
                        ticket["status"]?.stringValue == "ok" ? nil : (ticket["details"]?["error"]?.stringValue ?? "UnknownError")
                    })
            } else {
                let reason = record.response.reason ?? body?["errors"]?[0]?["code"]?.stringValue ?? "HTTP \(status)"
                self.init(kind: retryableStatuses.contains(status) ? .failed : .rejected, status: status, reason: reason)
            }
            return
        }
        if status == 200 {
            self.init(kind: .accepted, status: 200, reason: nil)
            return
        }
        if record.platform == .fcm {
            var errorCode: String?
            var apnsStatus: Int?
            var apnsReason: String?
            let error = body?["error"]
            for detail in error?["details"]?.arrayValue ?? [] {
                let type = detail["@type"]?.stringValue ?? ""
                if type.hasSuffix("FcmError") {
                    errorCode = detail["errorCode"]?.stringValue
                } else if type.hasSuffix("ApnsError") {
                    apnsStatus = detail["statusCode"]?.intValue
                    apnsReason = detail["reason"]?.stringValue
                }
            }
            let reason = errorCode ?? error?["status"]?.stringValue ?? record.response.reason ?? "HTTP \(status)"
            if errorCode == "UNREGISTERED" || apnsStatus == 410 {
                self.init(kind: .tokenInvalid, status: status, reason: apnsStatus == 410 ? (apnsReason ?? reason) : reason)
            } else {
                self.init(kind: retryableStatuses.contains(status) ? .failed : .rejected, status: status, reason: reason)
            }
            return
        }
        let reason = record.response.reason ?? body?["reason"]?.stringValue ?? "HTTP \(status)"
        if status == 410 {
            self.init(kind: .tokenInvalid, status: status, reason: reason)
        } else {
            self.init(kind: retryableStatuses.contains(status) ? .failed : .rejected, status: status, reason: reason)
        }
    }

    /// Whether two outcomes count as the same: same class, status and reason. Two failures
    /// without any HTTP answer match whatever their transport reasons (a reset and a closed
    /// connection look alike to a sender).
    public func matches(_ other: ReplayOutcome) -> Bool {
        if kind == .failed, other.kind == .failed, status == nil, other.status == nil { return true }
        return kind == other.kind && status == other.status && reason == other.reason
    }

    public var description: String {
        var text = kind.rawValue
        if let status { text += " \(status)" }
        if let reason { text += " \(reason)" }
        return text
    }
}
