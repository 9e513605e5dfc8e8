/// What kind of event a webhook carries (the `X-PushMock-Event` header and the envelope's
/// `type`). Open-ended: each producer names its own.
package struct WebhookEventType: Sendable, Hashable, CustomStringConvertible {
    package var name: String

    package init(_ name: String) { self.name = name }

    /// A recorded exchange (`serve --webhook`).
    package static let recording = WebhookEventType("recording")
    /// A simulated device's delivery receipt.
    package static let deliveryReceipt = WebhookEventType("delivery-receipt")
    /// A simulated user's engagement (open, dismiss, action).
    package static let engagement = WebhookEventType("engagement")

    package var description: String { name }
}

/// One event to deliver: its type, an id the receiver can deduplicate on (the same for every
/// attempt), and its data as a complete JSON document.
package struct WebhookEvent: Sendable {
    package var type: WebhookEventType
    package var id: String
    /// JSON bytes; embedded unchanged as the envelope's `data`.
    package var data: [UInt8]

    package init(type: WebhookEventType, id: String, data: [UInt8]) {
        self.type = type
        self.id = id
        self.data = data
    }

    /// The request body: `{"type":…,"id":…,"webhook":…,"data":…}`. Signed as these bytes.
    func envelope(webhook: String) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(data.count + 96)
        body.append(contentsOf: #"{"type":"#.utf8)
        Self.appendString(type.name, to: &body)
        body.append(contentsOf: #","id":"#.utf8)
        Self.appendString(id, to: &body)
        body.append(contentsOf: #","webhook":"#.utf8)
        Self.appendString(webhook, to: &body)
        body.append(contentsOf: #","data":"#.utf8)
        body.append(contentsOf: data.isEmpty ? Array("null".utf8) : data)
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// A JSON string literal.
    static func appendString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0xF)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
