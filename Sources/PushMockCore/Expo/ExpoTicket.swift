package import PushMockJSON

/// One push ticket: the answer for one (message, recipient) pair of a send request.
///
/// `{"status":"ok","id":"…"}` or `{"status":"error","message":…,"details":{"error":…}}`
/// (Expo docs "Push ticket format"); an error ticket has no `id`.
package enum ExpoTicket: Hashable, Sendable {
    case ok(ExpoReceiptID)
    case error(ExpoDeliveryError)

    /// Writes the ticket object.
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.staticKey("status")
        switch self {
        case .ok(let id):
            writer.string("ok")
            writer.staticKey("id")
            writer.string(id.rawValue)
        case .error(let error):
            writer.string("error")
            error.writeMembers(to: &writer)
        }
        writer.endObject()
    }
}

/// How `data` is shaped in a send response.
package enum ExpoTicketShape: Hashable, Sendable {
    /// `{"data":[ticket, …]}`: for an array body, or one message whose `to` is a list.
    case array
    /// `{"data":ticket}`: one message object with one `to` string (Expo docs: "or one push
    /// ticket object, if you send a single message to a single recipient").
    case single
}

/// The body of a successful (HTTP 200) send response.
package struct ExpoTicketResponse: Hashable, Sendable {
    package var tickets: [ExpoTicket]
    package var shape: ExpoTicketShape

    package init(tickets: [ExpoTicket], shape: ExpoTicketShape = .array) {
        self.tickets = tickets
        self.shape = shape
    }

    /// The exact body bytes.
    package var body: [UInt8] {
        var writer = JSONWriter(capacity: 64 + tickets.count * 64)
        writer.beginObject()
        writer.staticKey("data")
        if shape == .single, tickets.count == 1 {
            tickets[0].write(to: &writer)
        } else {
            writer.beginArray()
            for ticket in tickets { ticket.write(to: &writer) }
            writer.endArray()
        }
        writer.endObject()
        writer.flush()
        return writer.bytes
    }
}
