import PushMockCore
import PushMockJSON
import PushMockToolkit
import Testing

@Suite("Diff: structural JSON differences")
struct DiffJSONTests {
    static let notifications: JSONValue = [
        ["title": "Welcome", "badge": 1],
        ["title": "Reminder", "badge": 2],
        ["title": "Time for your BPC-157", "badge": 3],
    ]

    @Test("a changed value is named by its path")
    func changedValue() {
        let actual: JSONValue = [
            ["title": "Welcome", "badge": 1],
            ["title": "Reminder", "badge": 2],
            ["title": "Time for your {{compound_name}}", "badge": 3],
        ]
        let differences = JSONDiff.differences(expected: Self.notifications, actual: actual)
        #expect(differences.map(\.description) == [#"~ [2].title: "Time for your BPC-157" ≠ "Time for your {{compound_name}}""#])
        #expect(differences.first?.expectedPath == (try? JSONPath("$[2].title")))
        #expect(differences.first?.actualPath == (try? JSONPath("$[2].title")))
    }

    @Test("an inserted element is one addition, and later elements keep their identity")
    func insertedElement() {
        guard case .array(var elements) = Self.notifications else { return }
        elements.insert(["title": "New", "badge": 9], at: 1)
        elements[3] = ["title": "Time for your dose", "badge": 3]
        let differences = JSONDiff.differences(expected: Self.notifications, actual: .array(elements))
        #expect(
            differences.map(\.description) == [
                #"+ [1]: {"title":"New","badge":9}"#,
                #"~ [2→3].title: "Time for your BPC-157" ≠ "Time for your dose""#,
            ])
        #expect(differences[0].expectedPath == nil)
        #expect(differences[1].actualPath == (try? JSONPath("$[3].title")))
    }

    @Test("a removed element and removed or added members")
    func removed() {
        let actual: JSONValue = [
            ["title": "Welcome", "badge": 1, "sound": "default"],
            ["title": "Time for your BPC-157"],
        ]
        let differences = JSONDiff.differences(expected: Self.notifications, actual: actual)
        #expect(
            differences.map(\.description) == [
                #"+ [0].sound: "default""#,
                #"- [1]: {"title":"Reminder","badge":2}"#,
                #"- [2→1].badge: 3"#,
            ])
    }

    @Test("reordered elements are reported as moves")
    func reordered() {
        let actual: JSONValue = [
            ["title": "Time for your BPC-157", "badge": 3],
            ["title": "Welcome", "badge": 1],
            ["title": "Reminder", "badge": 2],
        ]
        let differences = JSONDiff.differences(expected: Self.notifications, actual: actual)
        #expect(differences.map(\.description) == [#"↕ [2→0]: moved {"title":"Time for your BPC-157","badge":3}"#])
    }

    @Test("by-index matching compares position by position")
    func byIndex() {
        let differences = JSONDiff.differences(expected: [1, 2, 3], actual: [0, 1, 2, 3], arrays: .byIndex)
        #expect(differences.map(\.description) == ["~ [0]: 1 ≠ 0", "~ [1]: 2 ≠ 1", "~ [2]: 3 ≠ 2", "+ [3]: 3"])
    }

    @Test("member order and number spelling are not differences; kind changes are")
    func equality() {
        #expect(JSONDiff.differences(expected: ["a": 1, "b": 2.0], actual: ["b": 2, "a": 1.0]).isEmpty)
        #expect(JSONDiff.differences(expected: ["a": 1], actual: ["a": "1"]).map(\.description) == [#"~ a: 1 ≠ "1""#])
        #expect(JSONDiff.differences(expected: 1, actual: 2).map(\.description) == ["~ $: 1 ≠ 2"])
    }

    @Test(
        "path descriptions quote names that are not plain",
        arguments: [
            ("apns-push-type", "headers.apns-push-type"),
            ("a b", "headers['a b']"),
            ("it's", #"headers['it\'s']"#),
            ("a.b", "headers['a.b']"),
            ("", "headers['']"),
        ]
    )
    func pathDescriptions(name: String, expected: String) throws {
        let difference = JSONDifference(steps: [.key("headers"), .key(name)], kind: .added(1))
        #expect(difference.pathDescription == expected)
        // The expected-side path parses back to the same components.
        let path = try #require(difference.actualPath)
        #expect(try JSONPath(path.description) == path)
    }

    @Test("the report has a legend, one line per difference, a limit and shortened values")
    func report() {
        let long = String(repeating: "x", count: 300)
        let differences = JSONDiff.differences(
            expected: ["a": 1, "b": 2, "c": .string(long)],
            actual: ["a": 2, "b": 3, "c": "short"]
        )
        let text = JSONDiff.rendered(differences, expectedLabel: "golden", actualLabel: "recorded", limit: 2, valueLimit: 20)
        #expect(
            text == """
                3 differences (~ golden ≠ recorded, - only golden, + only recorded):
                  ~ a: 1 ≠ 2
                  ~ b: 2 ≠ 3
                  … and 1 more

                """)
        let shortened = JSONDiff.rendered(Array(differences.suffix(1)), valueLimit: 20)
        #expect(shortened.contains(#"~ c: "xxxxxxxxxxxxxxxxxx… ≠ "short""#))
        #expect(JSONDiff.rendered([]) == "")
        #expect(JSONDiff.rendered(differences, style: .colored).contains("\u{1B}[33m~ a: 1 ≠ 2\u{1B}[0m"))
    }
}
