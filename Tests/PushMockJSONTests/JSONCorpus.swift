import PushMockJSON
import Testing

/// One named input for the parameterised JSON tests.
struct JSONCase: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    /// For invalid cases: the offset both implementations must report, when it is pinned down.
    var errorOffset: Int?

    init(_ name: String, _ text: String, errorOffset: Int? = nil) {
        self.name = name
        self.bytes = Array(text.utf8)
        self.errorOffset = errorOffset
    }

    init(_ name: String, bytes: [UInt8], errorOffset: Int? = nil) {
        self.name = name
        self.bytes = bytes
        self.errorOffset = errorOffset
    }

    var testDescription: String { name }
}

/// `"` + bytes + `"`: string literals in test source cannot hold invalid UTF-8.
func quoted(_ bytes: [UInt8]) -> [UInt8] {
    [0x22] + bytes + [0x22]
}

func nestedArrays(_ depth: Int) -> String {
    String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
}

func nestedObjects(_ depth: Int) -> String {
    String(repeating: "{\"k\":", count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
}

let apnsPayload = """
    {
      "aps" : {
        "alert" : { "title" : "Game Request", "subtitle" : "Five Card Draw", "body" : "Bob wants to play poker" },
        "badge" : 9,
        "sound" : "bingbong.aiff",
        "category" : "GAME_INVITATION",
        "content-available" : 1
      },
      "gameID" : "12345678"
    }
    """

enum JSONCorpus {
    static let valid: [JSONCase] = [
        JSONCase("empty object", "{}"),
        JSONCase("empty array", "[]"),
        JSONCase("zero", "0"),
        JSONCase("negative zero", "-0"),
        JSONCase("integer", "42"),
        JSONCase("negative integer", "-17"),
        JSONCase("fraction", "3.14159"),
        JSONCase("negative exponent", "-1.5e-10"),
        JSONCase("upper-case exponent with plus", "1E+2"),
        JSONCase("zero fraction", "0.0"),
        JSONCase("exponent forms", "[1e1,1E1,1e+1,1e-1,0e0,-0.0e-0]"),
        JSONCase("huge integer", "123456789012345678901234567890123456789"),
        JSONCase("huge exponent", "1e999999999999999999999"),
        JSONCase("tiny number", "-0.000000000000000000000001e-400"),
        JSONCase("empty string", "\"\""),
        JSONCase("ascii string", "\"hello, world\""),
        JSONCase("all simple escapes", #""\"\\\/\b\f\n\r\t""#),
        JSONCase("unicode escape", #""\u00e9\u00C9\u0041""#),
        JSONCase("escaped NUL", #""a\u0000b""#),
        JSONCase("two-byte UTF-8", "\"é ß ñ\""),
        JSONCase("three-byte UTF-8", "\"€ 日本語\""),
        JSONCase("four-byte UTF-8", "\"𝄞 😀\""),
        JSONCase("largest scalar", bytes: quoted([0xF4, 0x8F, 0xBF, 0xBF])),
        JSONCase("U+FFFF", bytes: quoted([0xEF, 0xBF, 0xBF])),
        JSONCase("U+2028 raw", "\"a\u{2028}b\""),
        JSONCase("DEL raw", bytes: quoted([0x61, 0x7F, 0x62])),
        JSONCase("surrogate pair escape", #""\uD834\uDD1E""#),
        JSONCase("lone high surrogate escape", #""\uD800""#),
        JSONCase("lone low surrogate escape", #""\uDC00""#),
        JSONCase("high surrogate then letter", #""\uD800\u0041x""#),
        JSONCase("two high surrogates", #""\uD800\uD800""#),
        JSONCase("true", "true"),
        JSONCase("false", "false"),
        JSONCase("null", "null"),
        JSONCase("surrounding whitespace", " \t\r\n true \n"),
        JSONCase("duplicate keys", #"{"a":1,"a":2}"#),
        JSONCase("empty key", #"{"":""}"#),
        JSONCase("mixed nesting", #"[1,[2,[3,{"a":[{}]}]],{"b":null}]"#),
        JSONCase("spaced object", "{ \"a\" : [ 1 , 2 ] , \"b\" :{ } }"),
        JSONCase("literals in array", "[true,false,null]"),
        JSONCase("APNs payload, pretty", apnsPayload),
        JSONCase(
            "FCM message",
            #"{"message":{"token":"abc:def","notification":{"title":"Hi"},"data":{"k":"v"},"android":{"priority":"high","ttl":"3.5s"}}}"#),
        JSONCase("512 nested arrays", nestedArrays(512)),
        JSONCase("512 nested objects", nestedObjects(512)),
        JSONCase("whitespace everywhere", "\n[\n\t1\r\n,\n\"x\"\n]\n"),
    ]

    static let invalid: [JSONCase] = [
        JSONCase("empty input", "", errorOffset: 0),
        JSONCase("only whitespace", "  \n ", errorOffset: 4),
        JSONCase("unclosed object", "{", errorOffset: 1),
        JSONCase("lone closing brace", "}", errorOffset: 0),
        JSONCase("unclosed array", "[1", errorOffset: 2),
        JSONCase("trailing comma in array", "[1,]", errorOffset: 3),
        JSONCase("trailing comma in object", #"{"a":1,}"#, errorOffset: 7),
        JSONCase("comma only object", "{,}", errorOffset: 1),
        JSONCase("leading comma in array", "[,1]", errorOffset: 1),
        JSONCase("missing colon and value", #"{"a"}"#, errorOffset: 4),
        JSONCase("missing colon", #"{"a" 1}"#, errorOffset: 5),
        JSONCase("unquoted key", "{a:1}", errorOffset: 1),
        JSONCase("single-quoted key", "{'a':1}", errorOffset: 1),
        JSONCase("missing comma in array", "[1 2]", errorOffset: 3),
        JSONCase("missing comma in object", #"{"a":1 "b":2}"#, errorOffset: 7),
        JSONCase("mismatched close", "[1}", errorOffset: 2),
        JSONCase("mismatched close in object", #"{"a":1]"#, errorOffset: 6),
        JSONCase("leading zero", "01", errorOffset: 1),
        JSONCase("negative leading zero", "-01", errorOffset: 2),
        JSONCase("leading zero in array", "[00]", errorOffset: 2),
        JSONCase("bare minus", "-", errorOffset: 1),
        JSONCase("minus then letter", "-a", errorOffset: 1),
        JSONCase("leading dot", ".5", errorOffset: 0),
        JSONCase("trailing dot", "1.", errorOffset: 2),
        JSONCase("dot before exponent", "1.e1", errorOffset: 2),
        JSONCase("empty exponent", "1e", errorOffset: 2),
        JSONCase("exponent sign only", "1e+", errorOffset: 3),
        JSONCase("plus sign", "+1", errorOffset: 0),
        JSONCase("hex number", "0x10", errorOffset: 1),
        JSONCase("Infinity", "Infinity", errorOffset: 0),
        JSONCase("NaN", "NaN", errorOffset: 0),
        JSONCase("negative Infinity", "-Infinity", errorOffset: 1),
        JSONCase("truncated true", "tru", errorOffset: 3),
        JSONCase("misspelled true", "trUe", errorOffset: 0),
        JSONCase("truncated null", "[nul", errorOffset: 4),
        JSONCase("literal with garbage", "truex", errorOffset: 4),
        JSONCase("unterminated string", "\"abc", errorOffset: 4),
        JSONCase("invalid escape", #""a\x""#, errorOffset: 2),
        JSONCase("single-quote escape", #""\'""#, errorOffset: 1),
        JSONCase("short unicode escape", #""\u12""#, errorOffset: 1),
        JSONCase("bad hex digit", #""\u12G4""#, errorOffset: 1),
        JSONCase("bad second surrogate escape", #""\uD800\uZZZZ""#, errorOffset: 7),
        JSONCase("raw control character", bytes: quoted([0x61, 0x01, 0x62]), errorOffset: 2),
        JSONCase("raw tab in string", bytes: quoted([0x09]), errorOffset: 1),
        JSONCase("raw newline in string", bytes: quoted([0x61, 0x0A]), errorOffset: 2),
        JSONCase("overlong slash (C0 AF)", bytes: quoted([0xC0, 0xAF]), errorOffset: 1),
        JSONCase("overlong C1", bytes: quoted([0xC1, 0xBF]), errorOffset: 1),
        JSONCase("overlong three-byte", bytes: quoted([0xE0, 0x80, 0xAF]), errorOffset: 1),
        JSONCase("overlong four-byte", bytes: quoted([0xF0, 0x80, 0x80, 0xAF]), errorOffset: 1),
        JSONCase("UTF-8 high surrogate", bytes: quoted([0xED, 0xA0, 0x80]), errorOffset: 1),
        JSONCase("UTF-8 low surrogate", bytes: quoted([0xED, 0xBF, 0xBF]), errorOffset: 1),
        JSONCase("above U+10FFFF", bytes: quoted([0xF4, 0x90, 0x80, 0x80]), errorOffset: 1),
        JSONCase("byte F5", bytes: quoted([0xF5, 0x80, 0x80, 0x80]), errorOffset: 1),
        JSONCase("byte FF", bytes: quoted([0xFF]), errorOffset: 1),
        JSONCase("lone continuation byte", bytes: quoted([0x80]), errorOffset: 1),
        JSONCase("truncated two-byte sequence", bytes: quoted([0xC3]), errorOffset: 1),
        JSONCase("truncated four-byte sequence", bytes: quoted([0xF0, 0x9F, 0x98]), errorOffset: 1),
        JSONCase("invalid UTF-8 in key", bytes: Array("{".utf8) + quoted([0xFE]) + Array(":1}".utf8), errorOffset: 2),
        JSONCase("two values", "1 2", errorOffset: 2),
        JSONCase("two objects", "{} {}", errorOffset: 3),
        JSONCase("extra close", "[1]]", errorOffset: 3),
        JSONCase("trailing comma at top level", "null,", errorOffset: 4),
        JSONCase("NUL byte outside string", bytes: [0x5B, 0x00, 0x5D], errorOffset: 1),
        JSONCase("byte order mark", bytes: [0xEF, 0xBB, 0xBF, 0x7B, 0x7D], errorOffset: 0),
        JSONCase("comment", "/* c */ 1", errorOffset: 0),
        JSONCase("513 nested arrays", nestedArrays(513), errorOffset: 512),
        JSONCase("513 nested objects", nestedObjects(513), errorOffset: 512 * 5),
        JSONCase("100000 open brackets", String(repeating: "[", count: 100_000), errorOffset: 512),
        JSONCase("form feed as whitespace", "\u{0C}1", errorOffset: 0),
        JSONCase("non-breaking space as whitespace", "\u{A0}1", errorOffset: 0),
    ]
}
