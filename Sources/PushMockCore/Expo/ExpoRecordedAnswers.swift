package import PushMockJSON

// Reading tickets and receipts back from JSON: what playback (`serve --playback`) and replay
// need to understand a recorded answer of the Expo push service.

extension ExpoDeliveryError {
    /// The error of a recorded error ticket or receipt (`"status":"error"`), `nil` for any
    /// other object.
    package init?(json: JSONValue) {
        guard json["status"]?.stringValue == "error", let code = json["details"]?["error"]?.stringValue else { return nil }
        self.init(
            code: ExpoErrorCode(rawValue: code),
            message: json["message"]?.stringValue ?? "",
            expoPushToken: json["details"]?["expoPushToken"]?.stringValue,
            sentAt: json["details"]?["sentAt"]?.int64Value
        )
    }
}

extension ExpoTicket {
    /// A recorded ticket object; `nil` when it is neither an ok ticket with an id nor an error.
    package init?(json: JSONValue) {
        if json["status"]?.stringValue == "ok", let id = json["id"]?.stringValue {
            self = .ok(ExpoReceiptID(id))
        } else if let error = ExpoDeliveryError(json: json) {
            self = .error(error)
        } else {
            return nil
        }
    }
}

extension ExpoTicketResponse {
    /// The tickets of a recorded send answer (`{"data":[…]}` or `{"data":ticket}`), in order;
    /// `nil` when the body is not one.
    package init?(json: JSONValue) {
        guard let data = json["data"] else { return nil }
        if let list = data.arrayValue {
            let tickets = list.compactMap(ExpoTicket.init(json:))
            guard tickets.count == list.count else { return nil }
            self.init(tickets: tickets, shape: .array)
        } else if let ticket = ExpoTicket(json: data) {
            self.init(tickets: [ticket], shape: .single)
        } else {
            return nil
        }
    }
}

extension ExpoReceipt {
    /// A recorded receipt object; `nil` when it is neither ok nor an error.
    package init?(json: JSONValue) {
        if json["status"]?.stringValue == "ok" {
            self = .ok
        } else if let error = ExpoDeliveryError(json: json) {
            self = .error(error)
        } else {
            return nil
        }
    }

    /// The error, if the receipt is one.
    package var error: ExpoDeliveryError? {
        if case .error(let error) = self { return error }
        return nil
    }
}

extension ExpoReceiptsResponse {
    /// The receipts of a recorded getReceipts answer (`{"data":{"<id>":receipt,…}}`), in the
    /// answer's order; `nil` when the body is not one.
    package init?(json: JSONValue) {
        guard let data = json["data"]?.objectValue else { return nil }
        var receipts: [(id: ExpoReceiptID, receipt: ExpoReceipt)] = []
        for member in data.members {
            guard let receipt = ExpoReceipt(json: member.value) else { return nil }
            receipts.append((ExpoReceiptID(member.key), receipt))
        }
        self.init(receipts: receipts)
    }
}
