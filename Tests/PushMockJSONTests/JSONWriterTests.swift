import PushMockTestSupport
import Testing

@testable import PushMockJSON

@Suite("JSONWriter")
struct JSONWriterTests {
    @Test("static keys of every length, first and after a member, across the staging buffer's end")
    func staticKeys() {
        let names: [StaticString] = [
            "", "a", "ab", "abc", "seq", "time", "timeMs", "platform", "namespace", "connection", "remoteAddress",
            "clientCertificateSubject", "latencyMicroseconds", "timestampMilliseconds_and_then_some_more_to_pass_32",
        ]
        let texts = names.map { $0.description }
        // Written again and again, so that keys start at every offset of the staging buffer.
        var writer = JSONWriter()
        var expected = "["
        writer.beginArray()
        for round in 0..<40 {
            writer.beginObject()
            expected += round == 0 ? "{" : ",{"
            for (index, name) in names.enumerated() {
                writer.staticKey(name)
                writer.number(round)
                expected += (index == 0 ? "" : ",") + "\"\(texts[index])\":\(round)"
            }
            writer.endObject()
            expected += "}"
        }
        writer.endArray()
        expected += "]"
        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
    }

    @Test("builds nested structures with automatic commas")
    func structure() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("a")
        writer.number(1)
        writer.key("b")
        writer.beginArray()
        writer.bool(true)
        writer.null()
        writer.beginObject()
        writer.endObject()
        writer.beginArray()
        writer.endArray()
        writer.string("s")
        writer.endArray()
        writer.staticKey("c")
        writer.raw(Array(#"{"x":[1,2]}"#.utf8))
        writer.key("d")
        writer.number(Int64.min)
        writer.key("e")
        writer.number(UInt64.max)
        writer.key("f")
        writer.number(-0.5)
        writer.key("g")
        writer.number(Double.infinity)
        writer.key("h")
        writer.base64String([0xFF, 0x00, 0x10])
        writer.endObject()
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(
            text
                == #"{"a":1,"b":[true,null,{},[],"s"],"c":{"x":[1,2]},"d":-9223372036854775808,"e":18446744073709551615,"f":-0.5,"g":null,"h":"/wAQ"}"#
        )
        #expect(JSONScanner.scan(writer.bytes).isCompact)
    }

    @Test(
        "escapes strings as specified",
        arguments: [
            ("plain", #""plain""#),
            ("quote \" backslash \\", #""quote \" backslash \\""#),
            ("\n\r\t\u{08}\u{0C}", #""\n\r\t\b\f""#),
            ("\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001f""#),
            ("é € 😀 \u{7F} \u{2028}", "\"é € 😀 \u{7F} \u{2028}\""),
            ("/", #""/""#),
            ("", #""""#),
        ]
    )
    func escaping(_ input: String, _ expected: String) {
        var writer = JSONWriter()
        writer.string(input)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
    }

    @Test("integers format exactly", arguments: [0, 7, 10, -1, 99, 100, 12345, Int.max, Int.min])
    func integers(_ value: Int) {
        var writer = JSONWriter()
        writer.number(value)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value))
    }

    @Test("doubles round-trip", arguments: [0.0, -0.0, 1.5, 1e-7, 1e300, 123456.789, Double.leastNonzeroMagnitude])
    func doubles(_ value: Double) throws {
        var writer = JSONWriter()
        writer.number(value)
        let parsed = try JSONValue(parsing: writer.bytes)
        #expect(parsed.doubleValue == value)
    }

    @Test("random strings round-trip through the parser", arguments: [1, 2, 3, 4, 5])
    func randomStrings(_ seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let pools: [ClosedRange<UInt32>] = [0x00...0x1F, 0x20...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF]
        for _ in 0..<400 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0..<40, using: &generator) {
                let pool = pools.randomElement(using: &generator)!
                let special: [UInt32] = [0x22, 0x5C, 0x2F, 0x0A, 0x00]
                let code =
                    Bool.random(using: &generator) && Bool.random(using: &generator)
                    ? special.randomElement(using: &generator)! : UInt32.random(in: pool, using: &generator)
                scalars.append(Unicode.Scalar(code)!)
            }
            let string = String(scalars)
            var single = JSONWriter()
            single.beginObject()
            single.key(string)
            single.string(string)
            single.endObject()
            let scanned = JSONScanner.scan(single.bytes)
            #expect(scanned.isCompact)
            let parsed = try JSONValue(parsing: single.bytes)
            let member = try #require(parsed.objectValue?.members.first)
            #expect(member.key.utf8.elementsEqual(string.utf8))
            #expect(member.value.stringValue.map { $0.utf8.elementsEqual(string.utf8) } == true)
        }
    }

    @Test("strings of every length, clean or full of escapes, survive the staging area", arguments: [false, true])
    func longStrings(_ escapes: Bool) throws {
        var writer = JSONWriter()
        var expected: [JSONValue] = []
        writer.beginArray()
        for length in stride(from: 0, through: 700, by: 7) {
            let unit = escapes ? "a\u{1}\"é\n" : "abcdefgh"
            let string = String(String(repeating: unit, count: length / 4 + 1).prefix(length))
            writer.string(string)
            writer.number(length)
            writer.raw(Array(String(repeating: "1", count: length % 300 + 1).utf8))
            expected += [.string(string), JSONValue(length), .number(String(repeating: "1", count: length % 300 + 1))]
        }
        writer.endArray()
        writer.flush()
        #expect(JSONScanner.scan(writer.bytes).isCompact)
        #expect(try JSONValue(parsing: writer.bytes) == .array(expected))
    }

    @Test(
        "one byte that needs escaping, at every position of strings up to 40 bytes, is found and escaped",
        arguments: [UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x00, 0x1F, UInt8(ascii: "\n")])
    func specialByteAtEveryPosition(_ special: UInt8) throws {
        for length in 1...40 {
            for position in 0..<length {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                bytes[position] = special
                // A clean word from the same buffer ends where the special byte sits.
                let found = bytes.withUnsafeBytes { JSONWriter.firstByteNeedingEscape($0.baseAddress!, length) }
                #expect(found == position, "length \(length), position \(position)")
                var writer = JSONWriter()
                let string = String(decoding: bytes, as: UTF8.self)
                writer.string(string)
                writer.flush()
                #expect(try JSONValue(parsing: writer.bytes) == .string(string))
            }
            let clean = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            #expect(clean.withUnsafeBytes { JSONWriter.firstByteNeedingEscape($0.baseAddress!, length) } == length)
        }
    }

    @Test("rawValue(maximumLength:) writes in place")
    func rawValueInPlace() {
        var writer = JSONWriter()
        writer.beginArray()
        for _ in 0..<100 {
            writer.rawValue(maximumLength: 3) { pointer in
                pointer.storeBytes(of: UInt8(ascii: "4"), as: UInt8.self)
                pointer.storeBytes(of: UInt8(ascii: "2"), toByteOffset: 1, as: UInt8.self)
                return 2
            }
        }
        writer.endArray()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "[" + Array(repeating: "42", count: 100).joined(separator: ",") + "]")
    }

    @Test("write(into:) appends in place to an existing buffer")
    func writeInto() {
        var buffer = Array("x=".utf8)
        JSONWriter.write(into: &buffer) { writer in
            writer.beginArray()
            writer.number(1)
            writer.number(2)
            writer.endArray()
        }
        #expect(String(decoding: buffer, as: UTF8.self) == "x=[1,2]")
    }

    @Test("top-level sequence of values is comma-separated (for building arrays piecewise)")
    func separators() {
        var writer = JSONWriter(capacity: 16)
        writer.number(1)
        writer.string("a")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"1,"a""#)
    }

    @Test("Base64 round-trips", arguments: [0, 1, 2, 3, 4, 5, 100])
    func base64(_ length: Int) {
        var generator = SeededGenerator(seed: UInt64(length))
        let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let encoded = Base64.encodedString(bytes)
        #expect(encoded.utf8.count == (length + 2) / 3 * 4)
        #expect(Base64.decode(encoded) == bytes)
    }

    @Test("Base64 rejects malformed input", arguments: ["a", "ab=c", "a===", "ab c", "abc=abcd", "=abc"])
    func base64Invalid(_ text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
