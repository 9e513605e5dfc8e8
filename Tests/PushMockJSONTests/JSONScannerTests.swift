import PushMockJSON
import Testing

@Suite("JSONScanner")
struct JSONScannerTests {
    @Test("accepts valid documents", arguments: JSONCorpus.valid)
    func acceptsValid(_ input: JSONCase) {
        let result = JSONScanner.scan(input.bytes)
        #expect(result.isValid, "\(String(describing: result.error))")
        #expect(result.topLevelKind != nil)
    }

    @Test("rejects invalid documents at the expected offset", arguments: JSONCorpus.invalid)
    func rejectsInvalid(_ input: JSONCase) throws {
        let result = JSONScanner.scan(input.bytes)
        let error = try #require(result.error)
        #expect(!result.isValid)
        #expect(result.topLevelKind == nil)
        if let expected = input.errorOffset {
            #expect(error.offset == expected, "\(error)")
        }
    }

    @Test("scanner and parser agree on validity, offset and reason", arguments: JSONCorpus.valid + JSONCorpus.invalid)
    func agreesWithParser(_ input: JSONCase) {
        let scanned = JSONScanner.scan(input.bytes)
        let parsed = Result { () throws(JSONSyntaxError) in try JSONValue(parsing: input.bytes) }
        switch parsed {
        case .success(let value):
            #expect(scanned.isValid)
            #expect(scanned.topLevelKind == value.kind)
        case .failure(let error):
            #expect(scanned.error == error)
        }
    }

    @Test(
        "reports the top-level kind",
        arguments: [
            ("{}", JSONKind.object), (" [1] ", .array), ("\"s\"", .string), ("-1.5", .number),
            ("true", .bool), ("false", .bool), ("null", .null),
        ]
    )
    func topLevelKind(_ text: String, _ kind: JSONKind) {
        let result = JSONScanner.scan(Array(text.utf8))
        #expect(result.topLevelKind == kind)
        #expect(result.isObject == (kind == .object))
    }

    @Test(
        "reports insignificant whitespace and line breaks outside strings only",
        arguments: [
            (#"{"a":"x y\n"}"#, false, false),
            (#"{"a": 1}"#, true, false),
            ("{\"a\":1}\n", true, true),
            ("\r\n{}", true, true),
            ("[1,\t2]", true, false),
            ("[\n]", true, true),
        ]
    )
    func whitespace(_ text: String, _ hasWhitespace: Bool, _ hasLineBreak: Bool) {
        let result = JSONScanner.scan(Array(text.utf8))
        #expect(result.isValid)
        #expect(result.hasInsignificantWhitespace == hasWhitespace)
        #expect(result.hasLineBreak == hasLineBreak)
        #expect(result.isCompact == !hasWhitespace)
    }

    @Test("nesting limit is configurable and exact", arguments: [1, 2, 64, 65, 511, 512, 513, 1000])
    func depthLimit(_ limit: Int) {
        #expect(JSONScanner.scan(Array(nestedArrays(limit).utf8), maxDepth: limit).isValid)
        let tooDeep = JSONScanner.scan(Array(nestedArrays(limit + 1).utf8), maxDepth: limit)
        #expect(tooDeep.error == JSONSyntaxError(offset: limit, reason: .nestingTooDeep(limit: limit)))
        #expect(JSONScanner.scan(Array("1".utf8), maxDepth: 0).isValid)
        #expect(!JSONScanner.scan(Array("[]".utf8), maxDepth: 0).isValid)
    }

    @Test("objects and arrays alternate correctly across 64-bit stack words")
    func alternatingNesting() {
        var text = ""
        for level in 0..<300 { text += level % 3 == 0 ? "{\"k\":" : "[" }
        text += "0"
        for level in (0..<300).reversed() { text += level % 3 == 0 ? "}" : "]" }
        #expect(JSONScanner.scan(Array(text.utf8)).isValid)
        // Swap one closer deep inside: must be rejected.
        var broken = Array(text.utf8)
        let firstCloser = broken.firstIndex { $0 == UInt8(ascii: "}") || $0 == UInt8(ascii: "]") }!
        let closer = broken[firstCloser + 130]
        broken[firstCloser + 130] = closer == UInt8(ascii: "}") ? UInt8(ascii: "]") : UInt8(ascii: "}")
        #expect(!JSONScanner.scan(broken).isValid)
    }

    @Test("works on slices and non-contiguous collections")
    func collections() {
        let bytes = Array("xx[1,2]yy".utf8)
        #expect(JSONScanner.scan(bytes[2..<7]).isValid)
        #expect(JSONScanner.scan(Array("[1,2]".utf8).lazy.map { $0 }).isValid)
        #expect(!JSONScanner.scan(bytes[2..<6]).isValid)
    }

    @Test("error descriptions are readable")
    func descriptions() {
        let error = JSONScanner.scan(Array("[1,]".utf8)).error
        #expect(error?.description == "unexpected character ']' at byte 3")
        #expect(JSONSyntaxError(offset: 0, reason: .unexpectedByte(0xC2)).description == "unexpected byte 0xC2 at byte 0")
    }
}
