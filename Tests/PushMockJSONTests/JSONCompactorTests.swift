import PushMockJSON
import Testing

@Suite("JSONCompactor")
struct JSONCompactorTests {
    @Test(
        "removes only insignificant whitespace",
        arguments: [
            (" { \"a b\" : [ 1 , \"x \\\" y\" ] }\n", #"{"a b":[1,"x \" y"]}"#),
            ("\n\t[\r\n]\n", "[]"),
            (#"{"k":"\\"}"#, #"{"k":"\\"}"#),
            ("  \"  spaced  \"  ", #""  spaced  ""#),
            ("[ 1.5e+10 , -0 ]", "[1.5e+10,-0]"),
            ("{\"\\\\\" : \"\\\\\\\"\" }", #"{"\\":"\\\""}"#),
        ]
    )
    func examples(_ input: String, _ expected: String) {
        #expect(String(decoding: JSONCompactor.compacted(Array(input.utf8)), as: UTF8.self) == expected)
    }

    @Test("compacted output re-parses to the same value and is compact", arguments: JSONCorpus.valid)
    func corpus(_ input: JSONCase) throws {
        let compact = JSONCompactor.compacted(input.bytes)
        let scanned = JSONScanner.scan(compact)
        #expect(scanned.isValid)
        #expect(!scanned.hasInsignificantWhitespace)
        #expect(try JSONValue(parsing: compact) == JSONValue(parsing: input.bytes))
        // Already compact input passes through unchanged.
        #expect(JSONCompactor.compacted(compact) == compact)
    }

    @Test("appends to an existing buffer")
    func appends() {
        var output = Array("prefix:".utf8)
        JSONCompactor.compact(Array("[ 1 ]".utf8), into: &output)
        #expect(String(decoding: output, as: UTF8.self) == "prefix:[1]")
    }

    @Test("keeps raw UTF-8 and escapes untouched")
    func bytesUntouched() {
        let input = Array("{ \"é\" : \"\\u00e9 😀\" }".utf8)
        #expect(JSONCompactor.compacted(input) == Array("{\"é\":\"\\u00e9 😀\"}".utf8))
    }
}
