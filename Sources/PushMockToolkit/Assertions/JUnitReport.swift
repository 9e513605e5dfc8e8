/// JUnit XML for CI systems that show test reports (GitLab, Jenkins, GitHub Actions reporters):
/// one `<testcase>` per expectation or check, a `<failure>` with the readable message when it
/// failed.
public enum JUnitReport {
    /// One test case: its name and, when failed, the message.
    public struct TestCase: Sendable, Hashable {
        public var name: String
        public var className: String
        public var failure: String?

        public init(name: String, className: String = "pushmock", failure: String? = nil) {
            self.name = name
            self.className = className
            self.failure = failure
        }
    }

    /// The test cases of expectation results.
    public static func testCases(_ results: [ExpectationResult], className: String = "pushmock.expect") -> [TestCase] {
        results.map { result in
            TestCase(name: result.name ?? result.expected, className: className, failure: result.passed ? nil : result.message)
        }
    }

    /// A whole `<testsuites>` document.
    public static func render(_ cases: [TestCase], suite: String = "pushmock") -> String {
        let failures = cases.filter { $0.failure != nil }.count
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites tests="\#(cases.count)" failures="\#(failures)">"# + "\n"
        xml += #"  <testsuite name="\#(escape(suite))" tests="\#(cases.count)" failures="\#(failures)" errors="0" skipped="0">"# + "\n"
        for testCase in cases {
            xml += #"    <testcase name="\#(escape(testCase.name))" classname="\#(escape(testCase.className))""#
            if let failure = testCase.failure {
                let firstLine = failure.split(separator: "\n").first.map(String.init) ?? failure
                xml += ">\n"
                xml += #"      <failure message="\#(escape(firstLine))" type="ExpectationFailed">\#(escape(failure))</failure>"# + "\n"
                xml += "    </testcase>\n"
            } else {
                xml += "/>\n"
            }
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// XML text and attribute escaping; control characters XML 1.0 forbids are dropped.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\n", "\t", "\r": escaped.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) { continue }
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
