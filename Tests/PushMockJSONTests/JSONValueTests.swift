import PushMockJSON
import Testing

@Suite("JSONValue")
struct JSONValueTests {
    @Test("parses the APNs sample with order, accessors and types intact")
    func parseAPNs() throws {
        let value = try JSONValue(parsing: apnsPayload)
        #expect(value["aps"]?["alert"]?["title"]?.stringValue == "Game Request")
        #expect(value["aps"]?["badge"]?.intValue == 9)
        #expect(value["aps"]?["content-available"]?.intValue == 1)
        #expect(value["gameID"]?.stringValue == "12345678")
        #expect(value.objectValue?.keys == ["aps", "gameID"])
        #expect(value["aps"]?.objectValue?.keys == ["alert", "badge", "sound", "category", "content-available"])
        #expect(value["missing"] == nil)
        #expect(value["aps"]?[0] == nil)
    }

    @Test("decodes escapes and surrogates")
    func escapes() throws {
        #expect(try JSONValue(parsing: #""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{08}\u{0C}\n\r\t"))
        #expect(try JSONValue(parsing: #""\u00e9\u20AC""#) == .string("é€"))
        #expect(try JSONValue(parsing: #""\uD834\uDD1E""#) == .string("𝄞"))
        #expect(try JSONValue(parsing: #""\uD800""#) == .string("\u{FFFD}"))
        #expect(try JSONValue(parsing: #""\uDC00x""#) == .string("\u{FFFD}x"))
        #expect(try JSONValue(parsing: #""\uD800\u0041""#) == .string("\u{FFFD}A"))
        #expect(try JSONValue(parsing: #""\uD800\uD834\uDD1E""#) == .string("\u{FFFD}𝄞"))
        #expect(try JSONValue(parsing: #""a\u0000b""#) == .string("a\u{0}b"))
    }

    @Test(
        "numbers compare exactly and numerically",
        arguments: [
            ("1", "1.0", true), ("1", "10e-1", true), ("0", "-0.0", true), ("100", "1e2", true),
            ("1.50", "1.5", true), ("-2.5E+3", "-2500", true), ("0.001", "1e-3", true),
            ("1", "2", false), ("1", "-1", false), ("9007199254740993", "9007199254740992", false),
            ("1e400", "2e400", false), ("12345678901234567890123", "12345678901234567890123.000", true),
        ]
    )
    func numberEquality(_ left: String, _ right: String, _ equal: Bool) {
        let a = JSONValue.number(left)
        let b = JSONValue.number(right)
        #expect((a == b) == equal)
        if equal {
            #expect(a.hashValue == b.hashValue)
        }
    }

    @Test("number accessors")
    func numberAccessors() {
        #expect(JSONValue.number("10").intValue == 10)
        #expect(JSONValue.number("1e1").intValue == 10)
        #expect(JSONValue.number("-2.50e1").int64Value == -25)
        #expect(JSONValue.number("10.5").intValue == nil)
        #expect(JSONValue.number("1e30").intValue == nil)
        #expect(JSONValue.number("18446744073709551615").uint64Value == UInt64.max)
        #expect(JSONValue.number("18446744073709551615").int64Value == nil)
        #expect(JSONValue.number("-1").uint64Value == nil)
        #expect(JSONValue.number("2.5").doubleValue == 2.5)
        #expect(JSONValue.string("1").intValue == nil)
        #expect(JSONValue(Double.nan) == .null)
        #expect(JSONValue(Int64.min).int64Value == Int64.min)
    }

    @Test("object equality ignores member order but not duplicates' order")
    func objectEquality() throws {
        let a = try JSONValue(parsing: #"{"a":1,"b":[1,2],"c":{"x":null,"y":true}}"#)
        let b = try JSONValue(parsing: #"{"c":{"y":true,"x":null},"b":[1,2],"a":1.0}"#)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(try JSONValue(parsing: "[1,2]") != JSONValue(parsing: "[2,1]"))
        #expect(try JSONValue(parsing: #"{"a":1,"a":2}"#) != JSONValue(parsing: #"{"a":2,"a":1}"#))
        #expect(try JSONValue(parsing: #"{"a":1,"a":2}"#)["a"] == 2)
        #expect(try JSONValue(parsing: #"{"a":1}"#) != JSONValue(parsing: #"{"a":1,"b":2}"#))
    }

    @Test("strings compare by code points, not canonical equivalence")
    func stringEquality() {
        let precomposed = JSONValue.string("\u{E9}")
        let decomposed = JSONValue.string("e\u{301}")
        #expect(precomposed != decomposed)
        let object: JSONValue = ["\u{E9}": 1]
        #expect(object["e\u{301}"] == nil)
        #expect(object["\u{E9}"] == 1)
    }

    @Test("literals build the expected values in order")
    func literals() {
        let value: JSONValue = ["b": 1, "a": [true, nil, 2.5, "x"]]
        #expect(value.compactString == #"{"b":1,"a":[true,null,2.5,"x"]}"#)
    }

    @Test("object mutation")
    func objectMutation() {
        var object: JSONObject = ["a": 1, "b": 2, "a": 3]
        object["a"] = 4
        #expect(JSONValue.object(object).compactString == #"{"a":1,"b":2,"a":4}"#)
        object["c"] = "new"
        object["a"] = nil
        #expect(JSONValue.object(object).compactString == #"{"b":2,"c":"new"}"#)
        #expect(object.count == 2)
        #expect(object.map(\.key) == ["b", "c"])
    }

    @Test("canonical form sorts keys and pretty-prints with two spaces")
    func canonical() throws {
        let value = try JSONValue(parsing: #"{"b":{"z":[],"y":{}},"a":[1,"x",{"k":1.50}],"é":null,"B":true}"#)
        let expected = """
            {
              "B": true,
              "a": [
                1,
                "x",
                {
                  "k": 1.50
                }
              ],
              "b": {
                "y": {},
                "z": []
              },
              "é": null
            }
            """
        #expect(value.canonicalString == expected)
        #expect(try JSONValue(parsing: value.canonicalBytes) == value)
        #expect(JSONValue.string("a\nb").canonicalString == #""a\nb""#)
    }

    @Test("compact serialisation round-trips every valid corpus case", arguments: JSONCorpus.valid)
    func compactRoundTrip(_ input: JSONCase) throws {
        let value = try JSONValue(parsing: input.bytes)
        let compact = value.compactBytes
        #expect(JSONScanner.scan(compact).isCompact)
        #expect(try JSONValue(parsing: compact) == value)
        #expect(try JSONValue(parsing: value.canonicalBytes) == value)
    }

    @Test("hand-built invalid number text serialises as null")
    func invalidNumberText() {
        #expect(JSONValue.array([.number("abc"), .number("1")]).compactString == "[null,1]")
    }

    @Test("finds member ranges verbatim")
    func memberRanges() throws {
        let text = #"{"a":{"b":"\u00e9\/","c":[1, {"d":2}]},"a\u0062":7,"x":true,"x":false}"#
        let bytes = Array(text.utf8)
        func slice(_ path: [String]) -> String? {
            JSONScanner.rangeOfValue(atKeyPath: path, in: bytes).map { String(decoding: bytes[$0], as: UTF8.self) }
        }
        #expect(slice([]) == text)
        #expect(slice(["a", "b"]) == #""\u00e9\/""#)
        #expect(slice(["a", "c"]) == #"[1, {"d":2}]"#)
        #expect(slice(["ab"]) == "7")
        #expect(slice(["x"]) == "false")
        #expect(slice(["a", "c", "d"]) == nil)
        #expect(slice(["missing"]) == nil)
        #expect(JSONScanner.rangeOfValue(atKeyPath: ["a"], in: Array(" {} ".utf8)) == nil)
    }

    @Test(
        "members found from their object's range, or all at once, are those found from the top",
        arguments: [
            #"{"a":{"b":"\u00e9\/","c":[1, {"d":2}]},"a\u0062":7,"x":true,"x":false}"#,
            #" { "a" : { "b" : 1 , "b" : [ "}" , "{" ] } , "c" : "\"a\":0" , "a" : { "c" : null } } "#,
            #"{"request":{"headers":[["a","b"]],"body":{"aps":{"alert":"x"}}},"response":{"status":200,"body":{"k":"v"}}}"#,
            "{}", "[1,2]", #""text""#,
        ])
    func membersFromTheirObject(_ text: String) throws {
        let bytes = Array(text.utf8)
        let document = JSONScanner.rangeOfDocument(in: bytes)
        #expect(document == JSONScanner.rangeOfValue(atKeyPath: [], in: bytes))
        let parsed = try JSONValue(parsing: bytes)
        guard let object = parsed.objectValue else {
            #expect(JSONScanner.memberValueRanges(inObjectAt: document, in: bytes) == nil)
            #expect(JSONScanner.rangeOfMember(named: "a", inObjectAt: document, in: bytes) == nil)
            return
        }
        let all = try #require(JSONScanner.memberValueRanges(inObjectAt: document, in: bytes))
        #expect(Set(all.keys) == Set(object.keys))
        for key in object.keys {
            let fromTop = JSONScanner.rangeOfValue(atKeyPath: [key], in: bytes)
            #expect(all[key] == fromTop, "\(key)")
            #expect(JSONScanner.rangeOfMember(named: key, inObjectAt: document, in: bytes) == fromTop, "\(key)")
            // One level down, from the member's own range.
            guard let member = fromTop, let nested = object[key]?.objectValue else { continue }
            for inner in nested.keys {
                #expect(
                    JSONScanner.rangeOfMember(named: inner, inObjectAt: member, in: bytes)
                        == JSONScanner.rangeOfValue(atKeyPath: [key, inner], in: bytes), "\(key).\(inner)")
            }
        }
        #expect(JSONScanner.rangeOfMember(named: "missing", inObjectAt: document, in: bytes) == nil)
        #expect(JSONScanner.rangeOfMember(named: "a", inObjectAt: bytes.count..<(bytes.count + 1), in: bytes) == nil)
    }
}
