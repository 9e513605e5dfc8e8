import PushMockAuth
import Testing

@Suite("Base64URL")
struct Base64URLTests {
    /// RFC 4648 §10 test vectors, without padding.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"),
        ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func encodesRFC4648Vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(plain) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func usesTheURLSafeAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
    }

    @Test(arguments: ["Zg==", "Zm8=", "Zm9v"])
    func acceptsCorrectPadding(encoded: String) {
        #expect(Base64URL.decode(encoded) != nil)
    }

    @Test(arguments: [
        "Zm9v+", "Zm/v", "Zm9v YQ", "Zm9v\nYQ", "Z", "Zm9vY", "Zg===", "Z=g", "Zm8==", "Zm9v=", "é",
    ])
    func rejectsInvalidText(encoded: String) {
        #expect(Base64URL.decode(encoded) == nil)
    }

    @Test func roundTripsEveryLengthAndByte() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("="))
            #expect(Base64URL.decode(encoded) == bytes)
        }
        let allBytes = (0...255).map { UInt8($0) }
        #expect(Base64URL.decode(Base64URL.encode(allBytes)) == allBytes)
    }
}
