package import PushMockJSON

/// One push receipt: what happened when Expo handed the message to APNs or FCM.
/// `{"status":"ok"}` or `{"status":"error","message":…,"details":{"error":…}}`.
package enum ExpoReceipt: Hashable, Sendable {
    case ok
    /// Indirect: the receipt store keeps up to 100,000 optional receipts, mostly `nil` or
    /// `.ok`, and inline the error made every one about 70 bytes.
    indirect case error(ExpoDeliveryError)

    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.staticKey("status")
        switch self {
        case .ok:
            writer.string("ok")
        case .error(let error):
            writer.string("error")
            error.writeMembers(to: &writer)
        }
        writer.endObject()
    }
}

/// The body of a successful receipts response: `{"data":{"<id>":receipt,…}}`. Ids without a
/// receipt (unknown, not ready yet, or expired after 24 h) are simply left out.
package struct ExpoReceiptsResponse: Hashable, Sendable {
    package var receipts: [(id: ExpoReceiptID, receipt: ExpoReceipt)]

    package init(receipts: [(id: ExpoReceiptID, receipt: ExpoReceipt)]) {
        self.receipts = receipts
    }

    package static func == (left: ExpoReceiptsResponse, right: ExpoReceiptsResponse) -> Bool {
        left.receipts.elementsEqual(right.receipts) { $0.id == $1.id && $0.receipt == $1.receipt }
    }

    package func hash(into hasher: inout Hasher) {
        for entry in receipts {
            hasher.combine(entry.id)
            hasher.combine(entry.receipt)
        }
    }

    /// The exact body bytes.
    package var body: [UInt8] {
        var writer = JSONWriter(capacity: 16 + receipts.count * 64)
        writer.beginObject()
        writer.staticKey("data")
        writer.beginObject()
        for entry in receipts {
            writer.key(entry.id.rawValue)
            entry.receipt.write(to: &writer)
        }
        writer.endObject()
        writer.endObject()
        writer.flush()
        return writer.bytes
    }
}
