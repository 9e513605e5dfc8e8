import PushMockCore
import Testing

@Suite("FCM topic conditions")
struct FCMConditionTests {
    @Test(
        "valid conditions: topics and canonical form",
        arguments: [
            ("'A' in topics", ["A"], "'A' in topics"),
            (#""A" in topics"#, ["A"], "'A' in topics"),
            ("'A' in topics && 'B' in topics", ["A", "B"], "('A' in topics && 'B' in topics)"),
            (
                "'TopicA' in topics && ('TopicB' in topics || 'TopicC' in topics)", ["TopicA", "TopicB", "TopicC"],
                "('TopicA' in topics && ('TopicB' in topics || 'TopicC' in topics))"
            ),
            ("!('A' in topics)", ["A"], "(!'A' in topics)"),
            ("!'A' in topics", ["A"], "(!'A' in topics)"),
            ("!!'A' in topics", ["A"], "(!(!'A' in topics))"),
            ("'A' in topics||'B' in topics", ["A", "B"], "('A' in topics || 'B' in topics)"),
            ("  ( 'A'\tin\ntopics )  ", ["A"], "'A' in topics"),
            ("'a-b_c.d~e%f' in topics", ["a-b_c.d~e%f"], "'a-b_c.d~e%f' in topics"),
            ("'A' in topics && 'A' in topics", ["A"], "('A' in topics && 'A' in topics)"),
            (
                "'A' in topics || 'B' in topics && 'C' in topics", ["A", "B", "C"],
                "('A' in topics || ('B' in topics && 'C' in topics))"
            ),
            (
                "'A' in topics && 'B' in topics || 'C' in topics", ["A", "B", "C"],
                "(('A' in topics && 'B' in topics) || 'C' in topics)"
            ),
            (
                "!'A' in topics && 'B' in topics", ["A", "B"],
                "((!'A' in topics) && 'B' in topics)"
            ),
            (
                "'A' in topics || 'B' in topics || 'C' in topics", ["A", "B", "C"],
                "(('A' in topics || 'B' in topics) || 'C' in topics)"
            ),
        ]
    )
    func valid(text: String, topics: [String], canonical: String) throws {
        let condition = try FCMCondition(parsing: text)
        #expect(condition.topics == topics)
        #expect(condition.root.description == canonical)
        #expect(condition.expression == text)
        #expect(condition.text == text)
        #expect(condition.description == text)
        // The canonical form parses back to the same tree.
        #expect(try FCMCondition(parsing: canonical).root == condition.root)
    }

    @Test(
        "evaluation and precedence (! before && before ||, parentheses first)",
        arguments: [
            ("'A' in topics", ["A"], true),
            ("'A' in topics", ["B"], false),
            ("'A' in topics && 'B' in topics", ["A"], false),
            ("'A' in topics && 'B' in topics", ["A", "B"], true),
            ("'A' in topics || 'B' in topics", ["B"], true),
            ("'A' in topics || 'B' in topics", [], false),
            ("'A' in topics || 'B' in topics && 'C' in topics", ["A"], true),
            ("'A' in topics || 'B' in topics && 'C' in topics", ["B"], false),
            ("'A' in topics || 'B' in topics && 'C' in topics", ["B", "C"], true),
            ("('A' in topics || 'B' in topics) && 'C' in topics", ["A"], false),
            ("('A' in topics || 'B' in topics) && 'C' in topics", ["A", "C"], true),
            ("'A' in topics && 'B' in topics || 'C' in topics", ["C"], true),
            ("'A' in topics && ('B' in topics || 'C' in topics)", ["C"], false),
            ("!'A' in topics && 'B' in topics", ["B"], true),
            ("!'A' in topics && 'B' in topics", ["A", "B"], false),
            ("!('A' in topics && 'B' in topics)", ["A"], true),
            ("!('A' in topics && 'B' in topics)", ["A", "B"], false),
            ("!!'A' in topics", ["A"], true),
            ("'TopicA' in topics && ('TopicB' in topics || 'TopicC' in topics)", ["TopicA", "TopicC"], true),
            ("'TopicA' in topics && ('TopicB' in topics || 'TopicC' in topics)", ["TopicB", "TopicC"], false),
        ]
    )
    func evaluate(text: String, subscribed: [String], expected: Bool) throws {
        #expect(try FCMCondition(parsing: text).evaluate(subscribedTopics: Set(subscribed)) == expected)
    }

    @Test(
        "invalid conditions: reason and offset",
        arguments: [
            ("", 0, "the condition is empty"),
            ("   ", 3, "the condition is empty"),
            ("'A' in topic", 7, "expected 'in topics' but found 'topic'"),
            ("'A' topics", 4, "expected 'in topics' but found 'topics'"),
            ("'A' in", 6, "expected 'in topics' but found the end of the condition"),
            ("'A'", 3, "expected 'in topics' but found the end of the condition"),
            ("A in topics", 0, "expected a quoted topic name, '(' or '!' but found 'A'"),
            ("'A in topics", 0, "unterminated topic name"),
            (#"'A" in topics"#, 0, "unterminated topic name"),
            ("'' in topics", 0, "empty topic name"),
            ("'a b' in topics", 1, "invalid topic name 'a b'; topic names must match [a-zA-Z0-9-_.~%]+"),
            ("'/topics/A' in topics", 1, "invalid topic name '/topics/A'; topic names must match [a-zA-Z0-9-_.~%]+"),
            ("'A' in topics & 'B' in topics", 14, "expected '&&'"),
            ("'A' in topics | 'B' in topics", 14, "expected '||'"),
            ("'A' in topics &&", 16, "expected a quoted topic name, '(' or '!' but the condition ended"),
            ("!", 1, "expected a quoted topic name, '(' or '!' but the condition ended"),
            ("('A' in topics", 14, "expected ')' but found the end of the condition"),
            ("('A' in topics 'B'", 15, "expected ')' but found '''"),
            ("'A' in topics)", 13, "unexpected ')'"),
            ("'A' in topics 'B' in topics", 14, "unexpected '''"),
            ("'A' in topics AND 'B' in topics", 14, "unexpected 'A'"),
            ("() ", 1, "expected a quoted topic name, '(' or '!' but found ')'"),
            ("'A' in topicsX", 7, "expected 'in topics' but found 'topicsX'"),
        ]
    )
    func invalid(text: String, offset: Int, reason: String) {
        #expect(throws: FCMConditionError(offset: offset, reason: reason)) {
            try FCMCondition(parsing: text)
        }
    }

    @Test("five topic terms are allowed, six are not")
    func topicLimit() throws {
        let names = ["a", "b", "c", "d", "e", "f"]
        let five = names.prefix(5).map { "'\($0)' in topics" }.joined(separator: " || ")
        let six = names.map { "'\($0)' in topics" }.joined(separator: " || ")
        #expect(try FCMCondition(parsing: five).topicCount == 5)
        #expect(throws: FCMConditionError(offset: 0, reason: "the condition has 6 topics; at most 5 are allowed")) {
            try FCMCondition(parsing: six)
        }
        // Repeats count.
        let repeated = Array(repeating: "'a' in topics", count: 6).joined(separator: " && ")
        #expect(throws: FCMConditionError(offset: 0, reason: "the condition has 6 topics; at most 5 are allowed")) {
            try FCMCondition(parsing: repeated)
        }
        #expect(try FCMCondition(parsing: six, maximumTopics: 6).topics == names)
    }

    @Test("deep nesting is refused instead of exhausting the stack")
    func nesting() throws {
        let fine = String(repeating: "(", count: 100) + "'a' in topics" + String(repeating: ")", count: 100)
        #expect(try FCMCondition(parsing: fine).topics == ["a"])
        let tooDeep = String(repeating: "(", count: 101) + "'a' in topics" + String(repeating: ")", count: 101)
        #expect(throws: FCMConditionError(offset: 101, reason: "the condition is nested more than 100 levels deep")) {
            try FCMCondition(parsing: tooDeep)
        }
        let nots = String(repeating: "!", count: 10_000) + "'a' in topics"
        #expect(throws: FCMConditionError(offset: 101, reason: "the condition is nested more than 100 levels deep")) {
            try FCMCondition(parsing: nots)
        }
    }

    @Test("error description")
    func errorDescription() {
        #expect(FCMConditionError(offset: 3, reason: "x").description == "x (at offset 3)")
    }
}
