import PushMockGateway
import PushMockSimulation
import Testing

@Suite("Delivery interner: repeated payloads and apps share one buffer")
struct DeliveryInternerTests {
    static func address(_ bytes: [UInt8]) -> UnsafeRawPointer? {
        bytes.withUnsafeBytes { $0.baseAddress }
    }

    @Test("an equal payload gets the buffer handed out first; a different one keeps its own")
    func payloads() {
        let interner = DeliveryInterner()
        let first: [UInt8] = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        let again = first.map { $0 }  // equal bytes, another buffer
        #expect(Self.address(first) != Self.address(again))
        let kept = interner.payload(first)
        let shared = interner.payload(again)
        #expect(shared == again, "the bytes are the same")
        #expect(Self.address(shared) == Self.address(kept), "and so is the buffer")
        let other: [UInt8] = Array(#"{"aps":{"alert":"ho"}}"#.utf8)
        let own = interner.payload(other)
        #expect(own == other && Self.address(own) == Self.address(other))
        // Back to the first after another (past the back-to-back shortcut): still shared.
        let third = interner.payload(first.map { $0 })
        #expect(third == first && Self.address(third) == Self.address(kept))
        #expect(Self.address(interner.payload(other.map { $0 })) == Self.address(other))
        #expect(interner.payload([]) == [])
    }

    @Test("it remembers at most its capacity of distinct values, and stays correct past it")
    func bounded() {
        let interner = DeliveryInterner()
        for index in 0..<(DeliveryInterner.capacity * 3) {
            let bytes = Array("payload \(index)".utf8)
            #expect(interner.payload(bytes) == bytes)
            #expect(interner.app("app.\(index)") == "app.\(index)")
        }
        let recent = Array("payload \(DeliveryInterner.capacity * 3 - 1)".utf8)
        #expect(interner.payload(recent) == recent)
    }

    @Test("app names are shared too")
    func apps() {
        let interner = DeliveryInterner()
        let first = interner.app(String("dev.pushmock.sample.long.enough.for.the.heap"))
        let second = interner.app(String("dev.pushmock.sample.long.enough.for.the.heap"))
        #expect(first == second)
        var a = first
        var b = second
        #expect(a.withUTF8 { $0.baseAddress } == b.withUTF8 { $0.baseAddress })
        // Another app in between (past the back-to-back shortcut), then the first again.
        let other = interner.app(String("dev.pushmock.other.long.enough.for.the.heap.too"))
        #expect(other == "dev.pushmock.other.long.enough.for.the.heap.too")
        var c = interner.app(String("dev.pushmock.sample.long.enough.for.the.heap"))
        #expect(c == first)
        #expect(c.withUTF8 { $0.baseAddress } == a.withUTF8 { $0.baseAddress })
    }

    @Test("payloads of one length that differ in one byte are not shared")
    func sameLengthPayloads() {
        let interner = DeliveryInterner()
        let base = Array(repeating: UInt8(ascii: "x"), count: 300)
        _ = interner.payload(base)
        for position in [0, 1, 150, 298, 299] {
            var changed = base
            changed[position] = UInt8(ascii: "y")
            #expect(interner.payload(changed) == changed)
            #expect(interner.payload(base) == base)
        }
    }

    @Test(
        "a template's content is one object while every field repeats; any field that differs makes a new one",
        arguments: ["app", "collapseKey", "displayKey", "kind", "payload", "collapseKey nil", "displayKey nil"]
    )
    func contents(changed field: String) {
        let interner = DeliveryInterner()
        let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        func content(_ change: String?) -> NotificationContent {
            interner.content(
                app: change == "app" ? "dev.pushmock.other" : "dev.pushmock.sample",
                collapseKey: change == "collapseKey" ? "k2" : change == "collapseKey nil" ? nil : "k1",
                displayKey: change == "displayKey" ? "d2" : change == "displayKey nil" ? nil : "d1",
                kind: change == "kind" ? "background" : "alert",
                // A fresh buffer every time: equal bytes count, not the same array.
                payload: change == "payload" ? Array(#"{"aps":{"alert":"ho"}}"#.utf8) : payload.map { $0 })
        }
        let first = content(nil)
        #expect(content(nil) === first, "the same values: the same object")
        let other = content(field)
        #expect(other !== first)
        #expect(!other.hasSameValues(as: first))
        #expect(other.app == (field == "app" ? "dev.pushmock.other" : "dev.pushmock.sample"))
        #expect(other.collapseKey == (field == "collapseKey" ? "k2" : field == "collapseKey nil" ? nil : "k1"))
        #expect(other.displayKey == (field == "displayKey" ? "d2" : field == "displayKey nil" ? nil : "d1"))
        #expect(other.kind == (field == "kind" ? "background" : "alert"))
        #expect(other.payload == (field == "payload" ? Array(#"{"aps":{"alert":"ho"}}"#.utf8) : payload))
        // Back to the first template: equal values again, and its payload buffer is shared.
        let again = content(nil)
        #expect(again.hasSameValues(as: first))
        #expect(Self.address(again.payload) == Self.address(first.payload))
    }
}
