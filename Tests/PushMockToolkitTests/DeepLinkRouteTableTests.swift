import Foundation
import PushMockCore
import PushMockJSON
import PushMockToolkit
import Testing

@Suite("Deep links: route table")
struct DeepLinkRouteTableTests {
    /// A route, a link, and where it should lead.
    struct RouteCase: Sendable, CustomStringConvertible {
        var pattern: String
        var screen: String
        var link: String
        var expectedScreen: String?
        var expectedParameters: [String: String] = [:]
        var description: String { "\(pattern) ← \(link)" }
    }

    static let routeForms: [RouteCase] = [
        // Path parameters.
        RouteCase(
            pattern: "loop://protocols/{id}/log", screen: "/protocols/{id}/log", link: "loop://protocols/p1/log",
            expectedScreen: "/protocols/p1/log", expectedParameters: ["id": "p1"]),
        RouteCase(pattern: "loop://protocols/{id}/log", screen: "/protocols/{id}/log", link: "loop://protocols/p1", expectedScreen: nil),
        RouteCase(
            pattern: "loop://protocols/{id}/log", screen: "/protocols/{id}/log", link: "loop://protocols/p1/log/extra", expectedScreen: nil),
        // Optional groups, reflected in the screen.
        RouteCase(
            pattern: "loop://protocols/{id}[/log]", screen: "/protocols/{id}[/log]", link: "loop://protocols/p1/log",
            expectedScreen: "/protocols/p1/log", expectedParameters: ["id": "p1"]),
        RouteCase(
            pattern: "loop://protocols/{id}[/log]", screen: "/protocols/{id}[/log]", link: "loop://protocols/p1",
            expectedScreen: "/protocols/p1", expectedParameters: ["id": "p1"]),
        RouteCase(
            pattern: "loop://chat[?context={ctx}]", screen: "/chat[/{ctx}]", link: "loop://chat",
            expectedScreen: "/chat"),
        RouteCase(
            pattern: "loop://chat[?context={ctx}]", screen: "/chat[/{ctx}]", link: "loop://chat?context=lab_l1",
            expectedScreen: "/chat/lab_l1", expectedParameters: ["ctx": "lab_l1"]),
        // Query parameters: captured, extra ones ignored, percent-decoded, `+` kept.
        RouteCase(
            pattern: "loop://chat?context={ctx}", screen: "/chat", link: "loop://chat?utm_source=push&context=lab_l1",
            expectedScreen: "/chat", expectedParameters: ["ctx": "lab_l1"]),
        RouteCase(pattern: "loop://chat?context={ctx}", screen: "/chat", link: "loop://chat", expectedScreen: nil),
        RouteCase(
            pattern: "loop://chat?context={ctx}", screen: "/chat", link: "loop://chat?context=lab%20l1+x",
            expectedScreen: "/chat", expectedParameters: ["ctx": "lab l1+x"]),
        // Literal query values and presence-only parameters.
        RouteCase(
            pattern: "loop://settings?tab=notifications", screen: "/settings/notifications", link: "loop://settings?tab=notifications",
            expectedScreen: "/settings/notifications"),
        RouteCase(
            pattern: "loop://settings?tab=notifications", screen: "/settings/notifications", link: "loop://settings?tab=privacy",
            expectedScreen: nil),
        RouteCase(pattern: "loop://debug?verbose", screen: "/debug", link: "loop://debug?verbose", expectedScreen: "/debug"),
        RouteCase(pattern: "loop://debug?verbose", screen: "/debug", link: "loop://debug", expectedScreen: nil),
        // Literal text around a parameter.
        RouteCase(
            pattern: "loop://chat?context=lab_{id}", screen: "/labs/{id}/chat", link: "loop://chat?context=lab_l7",
            expectedScreen: "/labs/l7/chat", expectedParameters: ["id": "l7"]),
        RouteCase(
            pattern: "loop://chat?context=lab_{id}", screen: "/labs/{id}/chat", link: "loop://chat?context=protocol_p1",
            expectedScreen: nil),
        RouteCase(
            pattern: "loop://files/{name}.pdf", screen: "/files/{name}", link: "loop://files/report.pdf",
            expectedScreen: "/files/report", expectedParameters: ["name": "report"]),
        // Custom schemes: the authority is the first segment, however it is written.
        RouteCase(pattern: "loop://checkin", screen: "/checkin", link: "loop:///checkin", expectedScreen: "/checkin"),
        RouteCase(pattern: "loop://checkin", screen: "/checkin", link: "loop:checkin", expectedScreen: "/checkin"),
        RouteCase(pattern: "loop://checkin", screen: "/checkin", link: "loop://checkin/", expectedScreen: "/checkin"),
        RouteCase(pattern: "loop://checkin", screen: "/checkin", link: "LOOP://checkin#top", expectedScreen: "/checkin"),
        RouteCase(pattern: "loop://checkin", screen: "/checkin", link: "loop://Checkin", expectedScreen: nil),
        RouteCase(pattern: "loop://checkin", screen: "/checkin", link: "other://checkin", expectedScreen: nil),
        // Percent-encoded slashes stay inside their segment.
        RouteCase(
            pattern: "loop://files/{path}", screen: "/files/{path}", link: "loop://files/a%2Fb",
            expectedScreen: "/files/a/b", expectedParameters: ["path": "a/b"]),
        // Universal links: scheme and host case-insensitive, path case-sensitive.
        RouteCase(
            pattern: "https://loop.example/labs/{id}", screen: "/labs/{id}", link: "HTTPS://Loop.Example/labs/l1?utm=mail",
            expectedScreen: "/labs/l1", expectedParameters: ["id": "l1"]),
        RouteCase(
            pattern: "https://loop.example/labs/{id}", screen: "/labs/{id}", link: "https://evil.example/labs/l1", expectedScreen: nil),
        RouteCase(
            pattern: "https://loop.example/labs/{id}", screen: "/labs/{id}", link: "http://loop.example/labs/l1", expectedScreen: nil),
        RouteCase(
            pattern: "https://loop.example/labs/{id}", screen: "/labs/{id}", link: "loop://loop.example/labs/l1", expectedScreen: nil),
    ]

    @Test("route forms", arguments: routeForms)
    func routeForm(_ example: RouteCase) throws {
        let table = try RouteTable(routes: [try RouteTable.Route(name: "route", pattern: example.pattern, screen: example.screen)])
        let match = table.resolve(example.link)
        #expect(match.screen == example.expectedScreen)
        #expect(match.parameters == example.expectedParameters)
        if example.expectedScreen != nil {
            #expect(match.route == "route")
        } else {
            #expect(match == .noRoute)
        }
    }

    @Test(
        "app-path patterns match under the scheme and as https on the universal-link hosts",
        arguments: [
            ("loop://protocols/p1", "/protocols/p1" as String?),
            ("https://loop.example/protocols/p1", "/protocols/p1"),
            ("https://www.loop.example/protocols/p1", "/protocols/p1"),
            ("http://loop.example/protocols/p1", nil),
            ("https://other.example/protocols/p1", nil),
            ("other://protocols/p1", nil),
        ])
    func appPath(link: String, screen: String?) throws {
        let table = try RouteTable(
            scheme: "Loop",
            universalLinkHosts: ["loop.example", "WWW.loop.example"],
            routes: [try RouteTable.Route(name: "protocol", pattern: "/protocols/{id}", screen: "/protocols/{id}")]
        )
        #expect(table.scheme == "loop")
        #expect(table.resolve(link).screen == screen)
    }

    @Test("the most specific route wins, whatever the order")
    func specificity() throws {
        let general = try RouteTable.Route(name: "protocol", pattern: "loop://protocols/{id}", screen: "/protocols/{id}")
        let literal = try RouteTable.Route(name: "new-protocol", pattern: "loop://protocols/new", screen: "/protocols/new")
        for routes in [[general, literal], [literal, general]] {
            let table = try RouteTable(routes: routes)
            #expect(table.resolve("loop://protocols/new").route == "new-protocol")
            #expect(table.resolve("loop://protocols/p1").route == "protocol")
        }
        // A literal query value beats a captured one; a captured one beats mere presence.
        let captured = try RouteTable.Route(name: "captured", pattern: "loop://chat?context={ctx}", screen: "/chat")
        let support = try RouteTable.Route(name: "support", pattern: "loop://chat?context=support", screen: "/support")
        let bare = try RouteTable.Route(name: "bare", pattern: "loop://chat", screen: "/chat")
        let table = try RouteTable(routes: [bare, captured, support])
        #expect(table.resolve("loop://chat?context=support").route == "support")
        #expect(table.resolve("loop://chat?context=lab_1").route == "captured")
        #expect(table.resolve("loop://chat").route == "bare")
    }

    @Test("equally specific routes: the earlier one wins")
    func ties() throws {
        let first = try RouteTable.Route(name: "first", pattern: "loop://items/{id}", screen: "/a/{id}")
        let second = try RouteTable.Route(name: "second", pattern: "loop://items/{key}", screen: "/b/{key}")
        #expect(try RouteTable(routes: [first, second]).resolve("loop://items/1").route == "first")
        #expect(try RouteTable(routes: [second, first]).resolve("loop://items/1").route == "second")
    }

    @Test("the resolution names the alternative that matched")
    func resolutionDetails() throws {
        let table = try LinkPolicyFixtures.loopRoutes()
        let resolution = try #require(table.resolve("loop://protocols/p1/log").resolution)
        #expect(
            resolution
                == DeepLinkResolution(
                    route: "protocol", pattern: "loop://protocols/{id}/log", screen: "/protocols/p1/log", parameters: ["id": "p1"]))
        #expect(table.resolve("loop://protocols/p1").resolution?.pattern == "loop://protocols/{id}")
    }

    @Test("no route: fallback when the table has one, noRoute otherwise")
    func fallback() throws {
        let route = try RouteTable.Route(pattern: "loop://checkin", screen: "/checkin")
        #expect(route.name == "loop://checkin")
        let withFallback = try RouteTable(routes: [route], fallback: "/")
        #expect(withFallback.resolve("loop://settings") == .fallback(screen: "/"))
        #expect(withFallback.resolve("loop://settings").screen == "/")
        #expect(!withFallback.resolve("loop://settings").isRouted)
        #expect(try RouteTable(routes: [route]).resolve("loop://settings") == .noRoute)
        // A malformed link is malformed, not "fallback".
        #expect(withFallback.resolve("loop://set tings").outcome == "malformed")
    }

    @Test(
        "malformed links say why",
        arguments: [
            ("", "empty link"),
            ("loop://protocols/{{ protocol_id }}/log", "unfilled template placeholder"),
            ("loop://protocols/{id}/log", "\"{\" at offset 17, which must be percent-encoded"),
            ("loop://chat?context=lab 1", "whitespace or a control character at offset 23"),
            (" loop://checkin", "whitespace"),
            ("loop://caf\u{E9}", "non-ASCII character \"\u{E9}\""),
            ("loop://chat?context=%zz", "invalid percent-escape"),
            ("loop://chat?context=%C3", "invalid percent-escape"),
            ("/protocols/p1", "relative link without a scheme"),
            ("protocols/p1", "no scheme"),
            ("1loop://x", "no scheme"),
            ("https:///labs/1", "https link without a host"),
            ("https:labs/1", "https link without a host"),
        ])
    func malformed(link: String, reason: String) throws {
        let table = try RouteTable(routes: [try RouteTable.Route(pattern: "loop://checkin", screen: "/checkin")], fallback: "/")
        guard case .malformed(let actual) = table.resolve(link) else {
            Issue.record("\(link) was not reported as malformed: \(table.resolve(link))")
            return
        }
        #expect(actual.contains(reason), "\(actual)")
    }

    @Test(
        "invalid patterns and screens",
        arguments: [
            ("loop://chat?context={ctx", "/chat", DeepLinkError.Code.invalidPattern, "unterminated \"{\""),
            ("loop://labs/{a}-{b}", "/labs", .invalidPattern, "only one parameter per path segment"),
            ("loop://labs/{a}/{a}", "/labs/{a}", .invalidPattern, "the parameter {a} appears twice"),
            ("loop://labs/{a b}", "/labs", .invalidPattern, "contains whitespace"),
            ("loop://labs/{a/b}", "/labs", .invalidPattern, "unterminated \"{\""),
            ("loop://labs/{}", "/labs", .invalidPattern, "invalid parameter name \"{}\""),
            ("loop://labs/id}", "/labs", .invalidPattern, "\"}\" without \"{\""),
            ("loop://labs[/x[/y]]", "/labs", .invalidPattern, "nested optional groups"),
            ("loop://labs]", "/labs", .invalidPattern, "\"]\" without \"[\""),
            ("loop://labs[/log", "/labs", .invalidPattern, "unterminated optional group"),
            ("loop://labs[]", "/labs", .invalidPattern, "empty optional group"),
            ("loop://a[/1][/2][/3][/4][/5][/6][/7]", "/a", .invalidPattern, "at most 6 optional groups"),
            ("loop://labs//x", "/labs", .invalidPattern, "empty path segment"),
            ("loop://labs#top", "/labs", .invalidPattern, "fragments"),
            ("loop://chat?a=1&a=2", "/chat", .invalidPattern, "\"a\" appears twice"),
            ("loop://chat?{name}=1", "/chat", .invalidPattern, "query parameter names cannot be parameters"),
            ("https:///labs", "/labs", .invalidPattern, "https pattern without a host"),
            ("https://{tenant}.loop.example/labs", "/labs", .invalidPattern, "the host cannot contain a parameter"),
            ("labs/{id}", "/labs", .invalidPattern, "expected a scheme"),
            (
                "loop://labs/{id}", "/labs/{lab}", .invalidScreen,
                "uses {lab}, which the pattern alternative \"loop://labs/{id}\" does not capture"
            ),
            ("loop://chat[?context={ctx}]", "/chat/{ctx}", .invalidScreen, "alternative \"loop://chat\" does not capture"),
            ("loop://labs/{id}[/x]", "/labs[/a][/b]", .invalidScreen, "has 2 optional group(s) but the pattern has 1"),
            ("loop://labs/{id}", "/labs/{id", .invalidScreen, "unterminated \"{\""),
        ])
    func invalidPattern(pattern: String, screen: String, code: DeepLinkError.Code, message: String) {
        #expect {
            _ = try RouteTable.Route(pattern: pattern, screen: screen)
        } throws: { error in
            guard let error = error as? DeepLinkError else { return false }
            return error.code == code && error.message.contains(message)
                && error.message.contains(code == .invalidScreen ? screen : pattern)
        }
    }

    @Test("app-path patterns need a scheme or universal-link hosts")
    func appPathNeedsScheme() throws {
        let route = try RouteTable.Route(pattern: "/protocols/{id}", screen: "/protocols/{id}")
        #expect(throws: DeepLinkError.self) { try RouteTable(routes: [route]) }
        #expect(throws: Never.self) { try RouteTable(scheme: "loop", routes: [route]) }
        #expect(throws: Never.self) { try RouteTable(universalLinkHosts: ["loop.example"], routes: [route]) }
        #expect(throws: DeepLinkError.self) { try RouteTable(scheme: "https", routes: [route]) }
        #expect(throws: DeepLinkError.self) { try RouteTable(scheme: "lo op", routes: [route]) }
        #expect(throws: DeepLinkError.self) { try RouteTable(universalLinkHosts: ["loop.example/x"], routes: [route]) }
    }

    // MARK: Files

    @Test("the Loop route table loads")
    func loopFile() throws {
        let table = try LinkPolicyFixtures.loopRoutes()
        #expect(table.routes.map(\.name) == ["protocol", "supply", "lab-results", "lab-results-web", "chat", "check-in", "achievements"])
        #expect(table.fallback == "/")
        #expect(table.scheme == "loop")
        #expect(table.linkLocations == nil)
        #expect(table.route(named: "chat")?.pattern == "loop://chat?context={context}")
    }

    @Test(
        "unusable files are reported with the place and the value",
        arguments: [
            (#"{"routes": []}"#, DeepLinkError.Code.unsupportedVersion, "version: missing (this reader understands version 1)"),
            (#"{"version": 2, "routes": []}"#, .unsupportedVersion, "version: version 2 is not supported"),
            (#"{"version": "1", "routes": []}"#, .invalidDefinition, "version: expected an integer, found the string \"1\""),
            (#"{"version": 1}"#, .invalidDefinition, "routes: missing"),
            (#"{"version": 1, "routes": {}}"#, .invalidDefinition, "routes: expected an array, found an object"),
            (#"{"version": 1, "routes": [], "fallbak": "/"}"#, .invalidDefinition, "unknown member \"fallbak\""),
            (#"{"version": 1, "routes": [], "version": 1}"#, .invalidDefinition, "member \"version\" appears twice"),
            (#"{"version": 1, "routes": [{"pattern": "loop://a"}]}"#, .invalidDefinition, "routes[0].screen: missing"),
            (
                #"{"version": 1, "routes": [{"pattern": 3, "screen": "/"}]}"#, .invalidDefinition,
                "routes[0].pattern: expected a string, found the number 3"
            ),
            (
                #"{"version": 1, "routes": [{"pattern": "loop://a/{x", "screen": "/"}]}"#, .invalidPattern,
                "routes[0].pattern: \"loop://a/{x\": unterminated"
            ),
            (
                #"{"version": 1, "routes": [{"pattern": "loop://a", "screen": "/{x}"}]}"#, .invalidScreen,
                "routes[0].screen: \"/{x}\": uses {x}"
            ),
            (
                #"{"version": 1, "routes": [{"name": "a", "pattern": "loop://a", "screen": "/"}, {"name": "a", "pattern": "loop://b", "screen": "/"}]}"#,
                .duplicateRouteName, "routes[1].name: another route is already named \"a\""
            ),
            (
                #"{"version": 1, "routes": [], "linkLocations": {"apns": ["deep_link"]}}"#, .invalidLocation,
                "linkLocations.apns[0]: invalid JSON path"
            ),
            (#"{"version": 1, "routes": [], "linkLocations": {"web": []}}"#, .invalidDefinition, "unknown member \"web\""),
            (#"{"version": 1, "routes": [}"#, .invalidJSON, "not valid JSON"),
            ("", .invalidJSON, "not valid JSON"),
            ("[]", .invalidDefinition, "expected an object, found an array"),
        ])
    func unusableFile(text: String, code: DeepLinkError.Code, message: String) {
        #expect {
            _ = try RouteTable(parsing: text)
        } throws: { error in
            guard let error = error as? DeepLinkError else { return false }
            return error.code == code && error.description.contains(message)
        }
    }

    @Test("file errors name the file")
    func fileErrors() throws {
        let missing = "/nonexistent/routes.json"
        #expect {
            _ = try RouteTable(contentsOfFile: missing)
        } throws: { error in
            (error as? DeepLinkError)?.code == .unreadableFile
                && (error as? DeepLinkError)?.description == "\(missing): cannot read the route table: No such file or directory"
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-routes-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(#"{"version": 1, "routes": [{"pattern": "loop://a", "screen": "/", "nmae": "x"}]}"#.utf8).write(
            to: URL(fileURLWithPath: path))
        #expect {
            _ = try RouteTable(contentsOfFile: path)
        } throws: { error in
            (error as? DeepLinkError)?.description
                == "\(path): routes[0]: unknown member \"nmae\" (expected one of: name, description, pattern, screen)"
        }
    }

    @Test("every error code has a distinct name")
    func errorCodes() {
        #expect(Set(DeepLinkError.Code.all.map(\.description)).count == DeepLinkError.Code.all.count)
    }

    @Test("link locations in the file extend or replace the defaults")
    func linkLocationsSection() throws {
        let extended = try RouteTable(
            parsing: #"""
                {"version": 1, "routes": [],
                 "linkLocations": {"apns": ["$.open", {"path": "$.buttons[*].target", "urlsOnly": true}], "fcm": ["$.message.data.open"]}}
                """#)
        let locations = try #require(extended.linkLocations)
        #expect(locations.count == DeepLinkLocation.defaults.count + 3)
        #expect(
            locations.suffix(3).map(\.description) == [
                "apns $.open", "apns $.buttons[*].target (URLs only)", "fcm $.message.data.open",
            ])
        let replaced = try RouteTable(
            parsing: #"{"version": 1, "routes": [], "linkLocations": {"includeDefaults": false, "apns": ["$.open"]}}"#)
        #expect(replaced.linkLocations?.map(\.description) == ["apns $.open"])
    }

    @Test("Decodable reads the same format")
    func decodable() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: LinkPolicyFixtures.loopDirectory + "/routes.json"))
        let decoded = try JSONDecoder().decode(RouteTable.self, from: data)
        #expect(decoded.resolve("loop://labs/l1").screen == "/labs/l1")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(RouteTable.self, from: Data(#"{"version": 1}"#.utf8))
        }
    }
}
