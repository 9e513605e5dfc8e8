import PushMockJSON
import Testing

@Suite("JSONPath")
struct JSONPathTests {
    static let document: JSONValue = [
        "aps": [
            "alert": ["title": "Hello", "body": "World"],
            "badge": 3,
            "content-available": 1,
        ],
        "items": [["id": 1], ["id": 2], ["id": 3]],
        "key with space": "s",
        "quote'd": "q",
        "empty": [:],
    ]

    @Test(
        "evaluates",
        arguments: [
            ("$", [document]),
            ("$.aps.alert.title", ["Hello"]),
            ("$['aps']['alert']['body']", ["World"]),
            (#"$["aps"]["content-available"]"#, [1]),
            (#"$.aps["content-available"]"#, [1]),
            ("$.aps.content-available", [1]),
            ("$.items[0].id", [1]),
            ("$.items[-1].id", [3]),
            ("$.items[ 1 ].id", [2]),
            ("$.items[3]", []),
            ("$.items[*].id", [1, 2, 3]),
            ("$.items.*.id", [1, 2, 3]),
            ("$.aps.alert.*", ["Hello", "World"]),
            ("$.aps[*]", [["title": "Hello", "body": "World"], 3, 1]),
            ("$['key with space']", ["s"]),
            (#"$['quote\'d']"#, ["q"]),
            (#"$["quote'd"]"#, ["q"]),
            ("$.missing", []),
            ("$.aps.badge.deeper", []),
            ("$.items.id", []),
            ("$.aps[0]", []),
            ("$.empty.*", []),
        ] as [(String, [JSONValue])]
    )
    func evaluate(_ expression: String, _ expected: [JSONValue]) throws {
        #expect(try Self.document.values(at: expression) == expected)
    }

    @Test(
        "rejects malformed expressions",
        arguments: [
            ("", 0), ("aps", 0), ("$.", 2), ("$..aps", 2), ("$[", 2), ("$[0", 3), ("$['a'", 5), ("$['a]", 2),
            ("$[a]", 2), ("$.a b", 3), ("$[\"\\n\"]", 4), ("$[1.5]", 3), ("$.a]", 3), ("$ .a", 1),
            ("$[99999999999999999999]", 2),
        ]
    )
    func errors(_ expression: String, _ offset: Int) {
        #expect(throws: JSONPathError.self) { try JSONPath(expression) }
        do {
            _ = try JSONPath(expression)
        } catch {
            #expect(error.offset == offset, "\(error)")
            #expect(error.description.contains("invalid JSON path"))
        }
    }

    @Test("description is a normalised expression that parses back", arguments: ["$.a.b[0]", "$['x y'][*].z", #"$["it's"][-2]"#, "$"])
    func normalised(_ expression: String) throws {
        let path = try JSONPath(expression)
        #expect(try JSONPath(path.description) == path)
    }

    @Test("components")
    func components() throws {
        #expect(try JSONPath("$.a[2][*]['b-c']").components == [.key("a"), .index(2), .wildcard, .key("b-c")])
    }
}
