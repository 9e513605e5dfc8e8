import Foundation
import PushMockJSON
import PushMockTestSupport
import PushMockToolkit
import Testing

/// The ECMA-262 regular expressions of `pattern`/`patternProperties`: hand-written cases where
/// ECMA differs from ICU (the old engine) and from Python's `re`, and a generated comparison
/// with a real ECMAScript engine (Node's `new RegExp(pattern, "u").test(text)`).
@Suite("ECMA-262 regular expressions")
struct ECMARegexTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var pattern: String
        var text: String
        var matches: Bool
        var testDescription: String { "/\(pattern)/u on \(text.debugDescription) → \(matches)" }
    }

    static let cases: [Case] = [
        // $ is the end of input, never before a final newline (ICU's and Python's $ are).
        Case(pattern: "^abc$", text: "abc\n", matches: false), Case(pattern: "^abc$", text: "abc", matches: true),
        // \d, \w, \s, \b are ASCII (\s: ECMA WhiteSpace and LineTerminator).
        Case(pattern: "^\\d$", text: "\u{0663}", matches: false), Case(pattern: "^\\D$", text: "\u{0663}", matches: true),
        Case(pattern: "^\\w$", text: "é", matches: false), Case(pattern: "^\\W$", text: "é", matches: true),
        Case(pattern: "^\\s$", text: "\u{a0}", matches: true), Case(pattern: "^\\s$", text: "\u{feff}", matches: true),
        Case(pattern: "^\\s$", text: "\u{85}", matches: false), Case(pattern: "^\\S$", text: "\u{85}", matches: true),
        Case(pattern: "^a\\Bé$", text: "aé", matches: false), Case(pattern: "a\\b", text: "aé", matches: true),
        // . is any code point but a line terminator (U+0085 is not one in ECMA).
        Case(pattern: "^.$", text: "\u{85}", matches: true), Case(pattern: "^.$", text: "\u{2028}", matches: false),
        Case(pattern: "^.$", text: "🙂", matches: true), Case(pattern: "^.{2}$", text: "🙂🙂", matches: true),
        Case(pattern: "^[🙂-🙃]$", text: "🙃", matches: true), Case(pattern: "^\\u{1F642}$", text: "🙂", matches: true),
        Case(pattern: "^\\uD83D\\uDE42$", text: "🙂", matches: true),
        // Unicode properties.
        Case(pattern: "^\\p{L}+$", text: "héllo", matches: true), Case(pattern: "^\\p{Letter}+$", text: "h1", matches: false),
        Case(pattern: "^\\p{Nd}$", text: "\u{0663}", matches: true), Case(pattern: "^\\P{L}$", text: "1", matches: true),
        Case(pattern: "^[\\p{Lu}\\d]+$", text: "A1B", matches: true), Case(pattern: "^\\p{gc=Lu}$", text: "a", matches: false),
        Case(pattern: "^\\p{digit}+$", text: "\u{0663}1", matches: true), Case(pattern: "^\\p{ASCII}*$", text: "é", matches: false),
        // Control escapes.
        Case(pattern: "^\\t$", text: "\t", matches: true), Case(pattern: "^\\cC$", text: "\u{3}", matches: true),
        Case(pattern: "^\\cc$", text: "\u{3}", matches: true), Case(pattern: "^\\x41\\u0042$", text: "AB", matches: true),
        Case(pattern: "^[\\b]$", text: "\u{8}", matches: true), Case(pattern: "^\\0$", text: "\u{0}", matches: true),
        // A backreference to a group that did not take part matches empty; captures reset per iteration.
        Case(pattern: "^(?:(a)|b)\\1$", text: "b", matches: true), Case(pattern: "^\\1(a)$", text: "a", matches: true),
        Case(pattern: "^(?:(a)|b\\1)+$", text: "ab", matches: true), Case(pattern: "^(?:(a)|(b))+\\1$", text: "ab", matches: true),
        Case(pattern: "^(?<x>a)\\k<x>$", text: "aa", matches: true),
        // Unanchored search, lazy and bounded quantifiers, lookaround (lookbehind of any length).
        Case(pattern: "b", text: "abc", matches: true), Case(pattern: "^a.*?c$", text: "abcbc", matches: true),
        Case(pattern: "^a{2,3}$", text: "aaaa", matches: false), Case(pattern: "^(?=.*\\d)(?!.*x).+$", text: "ab1", matches: true),
        Case(pattern: "(?<=^a+)b", text: "aaab", matches: true), Case(pattern: "(?<!a)b", text: "ab", matches: false),
        Case(pattern: "^(a*)*$", text: "aaab", matches: false), Case(pattern: "^(?:a|ab)(?:c|bcd)(d*)$", text: "abcd", matches: true),
        Case(pattern: "^/orders/[^/]+$", text: "/orders/123", matches: true),
        Case(pattern: "^/orders/[^/]+$", text: "/orders/1/2", matches: false),
        Case(pattern: "^[\\w.-]+@[\\w-]+\\.[a-z]{2,}$", text: "a.b@c-d.io", matches: true),
        Case(pattern: "", text: "anything", matches: true), Case(pattern: "a|", text: "b", matches: true),
    ]

    @Test("matches as ECMA-262 says", arguments: cases)
    func matchesLikeECMA(_ testCase: Case) throws {
        #expect(try ECMARegex(testCase.pattern).matches(testCase.text) == testCase.matches)
    }

    /// Accepted by ICU or Python, refused by ECMA-262 under the `u` flag.
    static let invalid = [
        "a*+", "a++", "(?>a)", "\\z", "\\Z", "\\A", "\\h", "\\a", "\\e", "a{", "a}", "]", "(?i)a", "(?#c)a", "[b-a]", "\\2(a)",
        "(?<n>a)\\k<m>", "a**", "\\p{Foo}", "\\p{letter}", "\\p{Script=Greek}", "\\c1", "\\x1", "\\u12", "(", ")", "[a", "\\-",
        "[\\d-z]", "^*", "(?=a)*", "\\01", "a{2,1}", "(?<a>x)(?<a>y)", "\\",
    ]

    @Test("refuses what ECMA-262 refuses", arguments: invalid)
    func refusesInvalid(_ pattern: String) {
        #expect(throws: ECMARegexError.self) { try ECMARegex(pattern) }
    }

    /// 2,000 nested `(?:` (8 KB to `PUT /_pushmock/contracts`) overflowed the stack while the
    /// pattern was parsed, and took the gateway down.
    @Test(
        "groups nested beyond 100 levels are an error, not a stack overflow",
        arguments: ["(?:", "(", "(?=", "(?<!", "(?<g>"])
    func deepGroups(opening: String) throws {
        func nested(_ depth: Int) -> String {
            (0..<depth).map { opening == "(?<g>" ? "(?<g\($0)>" : opening }.joined() + "a" + String(repeating: ")", count: depth)
        }
        let error = try #require(throws: ECMARegexError.self) { try ECMARegex(nested(2000)) }
        #expect(error.message == "groups nest more than 100 levels deep")
        #expect(throws: ECMARegexError.self) { try ECMARegex(nested(101)) }
        _ = try ECMARegex(nested(100))
    }

    @Test("an invalid pattern is a schema error naming the place", arguments: ["pattern", "patternProperties"])
    func invalidPatternIsASchemaError(_ keyword: String) throws {
        let schema: JSONValue =
            keyword == "pattern"
            ? .object(["properties": .object(["a": .object(["pattern": "a*+"])])])
            : .object(["patternProperties": .object(["(?i)a": true])])
        let error = try #require(throws: JSONSchemaError.self) { try JSONSchema(schema) }
        #expect(error.location.hasSuffix(keyword))
        #expect(error.message.contains("not an ECMA-262 regular expression"))
    }

    @Test(
        "catastrophic backtracking and deep nesting give up: a violation, not a hang or a crash",
        arguments: [("^(a+)+$", "a", 40, "b"), ("^(?:ab|c)*$", "ab", 20_000, "c"), ("^(?:(a)|b)+$", "ab", 50_000, "")])
    func givesUp(pattern: String, unit: String, count: Int, end: String) throws {
        let text = String(repeating: unit, count: count) + end
        #expect(try ECMARegex(pattern).firstMatch(in: text) == nil)
        let schema = try JSONSchema(.object(["pattern": .string(pattern)]))
        #expect(schema.validate(.string(text)).map(\.message) == ["matching \(pattern) gave up (too much backtracking)"])
    }

    @Test("repeated single characters, and alternations of them, have no length limit", arguments: ["^(?:a|b)*c$", "^[ab]*c$", "^.*c$"])
    func singleCharacterRepetitionIsUnlimited(_ pattern: String) throws {
        #expect(try ECMARegex(pattern).firstMatch(in: String(repeating: "ab", count: 50_000) + "c") == true)
    }

    // MARK: Against Node

    static var node: String? {
        if let override = ProcessInfo.processInfo.environment["PUSHMOCK_NODE"] { return override }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let path = "\(directory)/node"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    static let nodeScript = #"""
        const fs = require("fs");
        const cases = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
        const out = cases.map(c => {
          let re;
          try { re = new RegExp(c.pattern, "u"); } catch (e) { return null; }
          return c.texts.map(t => re.test(t));
        });
        process.stdout.write(JSON.stringify(out));
        """#

    @Test(
        "generated patterns: same verdicts as Node's RegExp with the u flag", .enabled(if: node != nil, "needs node on PATH"),
        arguments: [1 as UInt64, 2, 3])
    func agreesWithNode(seed: UInt64) async throws {
        var generator = PatternGenerator(seed: seed)
        var cases: [(pattern: String, texts: [String])] = []
        for _ in 0..<600 {
            cases.append((generator.pattern(), (0..<12).map { _ in generator.text() }))
        }
        for testCase in Self.cases { cases.append((testCase.pattern, [testCase.text])) }
        // Script properties are valid ECMA that PushMock refuses (no script data in Swift).
        for pattern in Self.invalid where !pattern.contains("Script") { cases.append((pattern, [""])) }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-regex-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let casesFile = directory.appendingPathComponent("cases.json")
        let scriptFile = directory.appendingPathComponent("oracle.js")
        let document = JSONValue.array(
            cases.map { .object(["pattern": .string($0.pattern), "texts": .array($0.texts.map { .string($0) })]) })
        try Data(document.compactBytes).write(to: casesFile)
        try Data(Self.nodeScript.utf8).write(to: scriptFile)
        let result = try await ChildProcess.run(try #require(Self.node), [scriptFile.path, casesFile.path])
        try #require(result.status == 0, "node failed: \(result.error.suffix(2000))")
        let verdicts = try #require(try JSONValue(parsing: result.output).arrayValue)
        try #require(verdicts.count == cases.count)

        var mismatches: [String] = []
        var counts = (invalid: 0, matched: 0, total: 0)
        for (index, testCase) in cases.enumerated() {
            let ours = try? ECMARegex(testCase.pattern)
            guard let theirs = verdicts[index].arrayValue else {
                counts.invalid += 1
                if ours != nil { mismatches.append("/\(testCase.pattern)/u: node refuses it, we accept it") }
                continue
            }
            guard let ours else {
                mismatches.append("/\(testCase.pattern)/u: node accepts it, we refuse it")
                continue
            }
            for (text, verdict) in zip(testCase.texts, theirs) {
                counts.total += 1
                if verdict.boolValue == true { counts.matched += 1 }
                if ours.matches(text) != verdict.boolValue {
                    mismatches.append("/\(testCase.pattern)/u on \(text.debugDescription): node \(verdict), ours \(ours.matches(text))")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) differ:\n\(mismatches.prefix(10).joined(separator: "\n"))")
        #expect(counts.matched > counts.total / 10 && counts.matched < counts.total * 9 / 10, "\(counts)")
        #expect(counts.invalid > 20, "\(counts)")
    }
}

/// Random patterns over the constructs JSON Schema patterns use (and some they must refuse),
/// with texts drawn from an alphabet where ECMA, ICU and Python disagree.
struct PatternGenerator {
    var random: SchemaCaseGenerator

    init(seed: UInt64) { random = SchemaCaseGenerator(seed: seed &+ 1000) }

    static let atoms = [
        "a", "b", "c", "1", ".", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "[a-c]", "[^a]", "[\\d_]", "[\\s\\S]", "[^\\w]", "\\u00e9", "é",
        "\\u{1F642}", "🙂", "\\p{L}", "\\p{Nd}", "\\P{L}", "\\p{Lu}", "[\\p{L}1]", "\\x61", "\\.", "[.]", "\\n", "\\t", "[-a]", "[a-]",
        "\\uD83D\\uDE42", "\\p{White_Space}", "\\p{Alphabetic}", "[🙂-🙃]",
    ]
    static let quantifiers = ["", "", "", "*", "+", "?", "{2}", "{1,2}", "{0,}", "*?", "+?", "??", "{1,3}?"]
    static let broken = ["*", "+*", "{", "}", "]", "(?>", "(?i)", "\\z", "\\a", "\\p{Greek}", "\\k<q>", "\\9", "\\-", "(?<", "\\c"]
    static let alphabet: [String] = [
        "a", "b", "c", "1", "\u{0663}", "é", "🙂", "🙃", " ", "\u{a0}", "\n", "_", "x", "\u{2028}", "\t", "A", "\u{85}", ".", "-",
    ]

    mutating func pattern() -> String {
        var text = random.chance(30) ? "^" : ""
        var groups = 0
        text += sequence(depth: 0, groups: &groups)
        if random.chance(30) { text += "$" }
        if random.chance(8) {
            let position = random.int(0...text.unicodeScalars.count)
            var scalars = Array(text.unicodeScalars)
            scalars.insert(contentsOf: random.pick(Self.broken).unicodeScalars, at: position)
            text = String(String.UnicodeScalarView(scalars))
        }
        return text
    }

    private mutating func sequence(depth: Int, groups: inout Int) -> String {
        var text = ""
        for _ in 0..<random.int(1...4) {
            switch random.int(0...13) {
            case 0 where depth < 2:
                groups += 1
                text += "(" + sequence(depth: depth + 1, groups: &groups) + "|" + sequence(depth: depth + 1, groups: &groups) + ")"
            case 1 where depth < 2: text += "(?:" + sequence(depth: depth + 1, groups: &groups) + ")"
            case 2 where depth < 2:
                text += random.pick(["(?=", "(?!", "(?<=", "(?<!"]) + sequence(depth: depth + 1, groups: &groups) + ")"
                continue
            case 3 where groups > 0: text += "\\\(random.int(1...groups))"
            case 4:
                text += random.pick(["\\b", "\\B"])
                continue
            default: text += random.pick(Self.atoms)
            }
            text += random.pick(Self.quantifiers)
        }
        return text
    }

    mutating func text() -> String {
        (0..<random.int(0...6)).map { _ in random.pick(Self.alphabet) }.joined()
    }
}
