import PushMockGateway
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
}
