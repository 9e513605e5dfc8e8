/// What the Expo push service said about one message.
public enum ExpoTicketOutcome: Sendable, Hashable {
    /// Accepted; the receipt id to ask for later.
    case ok(receiptID: String)
    /// An error ticket: `details.error` (e.g. `DeviceNotRegistered`) and the message.
    case error(code: String, message: String)
    /// The whole request failed (request error such as `VALIDATION_ERROR`, or the request could
    /// not be made after the retries): no ticket was issued.
    case requestFailed(code: String, message: String)

    public var isOK: Bool {
        if case .ok = self { return true }
        return false
    }

    /// The error code of an error ticket or failed request.
    public var errorCode: String? {
        switch self {
        case .ok: return nil
        case .error(let code, _), .requestFailed(let code, _): return code
        }
    }
}

/// One message's ticket.
public struct ExpoTicketResult: Sendable, Hashable {
    public var token: String
    public var outcome: ExpoTicketOutcome
}

/// A receipt as fetched: ok, or an error with its code.
public enum ExpoReceiptOutcome: Sendable, Hashable {
    case ok
    case error(code: String, message: String)
}

/// The result of ``ExpoSender/send(_:)``: one ticket per message, in order, and how it went.
public struct ExpoSendReport: Sendable {
    public var tickets: [ExpoTicketResult]
    /// Send requests made, retries included.
    public var requests: Int
    /// Of them, retries (429, 5xx, connection faults).
    public var retries: Int
    public var duration: Duration

    public var okCount: Int { tickets.count { $0.outcome.isOK } }

    /// Tickets by error code.
    public var errorCounts: [String: Int] {
        var counts: [String: Int] = [:]
        for ticket in tickets {
            if let code = ticket.outcome.errorCode { counts[code, default: 0] += 1 }
        }
        return counts
    }

    /// Receipt id → token, for the accepted messages.
    public var receiptIDs: [String: String] {
        var ids: [String: String] = [:]
        for ticket in tickets {
            if case .ok(let id) = ticket.outcome { ids[id] = ticket.token }
        }
        return ids
    }

    /// Tokens the app should stop sending to: `DeviceNotRegistered` tickets.
    public var tokensToDelete: [String] {
        Array(Set(tickets.filter { $0.outcome.errorCode == "DeviceNotRegistered" }.map(\.token))).sorted()
    }

    /// One line: `10000 messages, 100 requests (0 retries): 9998 ok, DeviceNotRegistered 2`.
    public var summary: String {
        let errors = errorCounts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        let elapsed =
            "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - String(milliseconds % 1000).count))\(milliseconds % 1000) s"
        return (["\(tickets.count) messages, \(requests) requests (\(retries) retries) in \(elapsed)", "\(okCount) ok"] + errors)
            .joined(separator: ", ")
    }
}

/// The result of ``ExpoSender/pollReceipts(for:interval:timeout:)``.
public struct ExpoReceiptReport: Sendable {
    /// Receipt id → outcome, for the receipts that arrived.
    public var receipts: [String: ExpoReceiptOutcome]
    /// Receipt ids still without a receipt when polling stopped.
    public var missing: [String]
    /// Tokens to delete: `DeviceNotRegistered` tickets and receipts.
    public var tokensToDelete: [String]

    public var okCount: Int { receipts.values.count { $0 == .ok } }

    public var summary: String {
        var errors: [String: Int] = [:]
        for case .error(let code, _) in receipts.values { errors[code, default: 0] += 1 }
        let parts =
            ["\(receipts.count) receipts", "\(okCount) ok"] + errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            + (missing.isEmpty ? [] : ["\(missing.count) missing"])
            + ["\(tokensToDelete.count) tokens to delete"]
        return parts.joined(separator: ", ")
    }
}

/// What one request to the Expo push service came to (``ExpoSender/send(wireRequest:)``).
public struct ExpoRequestResult: Sendable, Hashable {
    public enum Outcome: Sendable, Hashable {
        /// HTTP 200: one ticket per (message, recipient), in order.
        case tickets([ExpoTicketOutcome])
        /// A request error (`{"errors":[{"code","message"}]}` or another non-200 answer) after
        /// the retries, with its HTTP status.
        case requestError(status: Int, code: String, message: String)
        /// No HTTP answer after the retries (connection failed, reset, timeout).
        case failed(code: String, message: String)
    }

    public var outcome: Outcome
    /// Requests made, the first included.
    public var attempts: Int

    public init(outcome: Outcome, attempts: Int) {
        self.outcome = outcome
        self.attempts = attempts
    }
}
