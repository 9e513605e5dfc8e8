import Foundation
import PushMockAuth
import PushMockControl
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockTesting
import PushMockTransport
import Testing

/// The control API over real HTTP: HTTP/1.1 (curl) and HTTP/2 (our client), TLS and cleartext.
@Suite("Control API")
struct ControlAPITests {
    /// Calls the control API with curl over HTTP/1.1 on the cleartext listener.
    static func curl(_ mock: PushMockHarness, _ method: String, _ path: String, body: String? = nil) async throws -> (
        status: Int, json: JSONValue?
    ) {
        var arguments = ["-s", "-o", "-", "-w", "\n%{http_code}", "-X", method, "--http1.1"]
        if let body {
            arguments += ["-H", "content-type: application/json", "--data-binary", body]
        }
        arguments.append("http://127.0.0.1:\(mock.cleartextPort)\(path)")
        let result = try await run("/usr/bin/curl", arguments)
        let parts = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(parts.last ?? "") ?? 0
        let body = parts.dropLast().joined(separator: "\n")
        return (status, try? JSONValue(parsing: Array(body.utf8)))
    }

    static func http2(_ connection: HTTP2ClientConnection, _ method: String, _ path: String, body: String? = nil) async throws -> (
        status: Int, json: JSONValue?
    ) {
        let response = try await connection.send(HTTPRequestMessage(method: method, path: path, body: Array((body ?? "").utf8)))
        return (response.status, try? JSONValue(parsing: response.body))
    }

    /// A user's error names the member at fault: a bad cap window was reported at `.limit`,
    /// and a `"+99:00"` zone was taken (the policy checker then judged the user in its default
    /// zone).
    @Test(
        "a bad user is a 400 naming the member at fault",
        arguments: [
            (
                #"{"id":"u","preferences":{"caps":[{"limit":1,"window":"0s"}]}}"#,
                #".preferences.caps[0].window: a cap's window "0s" is not a duration"#
            ),
            (
                #"{"id":"u","preferences":{"caps":[{"limit":-1,"calendar":"day"}]}}"#,
                ".preferences.caps[0].limit: a cap's limit cannot be negative (was -1)"
            ),
            (
                #"{"id":"u","preferences":{"caps":[{"limit":1,"calendar":"year"}]}}"#,
                #".preferences.caps[0].calendar: a cap's calendar "year" is not day, week or month"#
            ),
            (#"{"id":"u","preferences":{"caps":[{"limit":1}]}}"#, #".preferences.caps[0]: a cap needs exactly one of "window""#),
            (#"{"id":"u","timeZone":"+99:00"}"#, #""+99:00" is not a time zone"#),
            (#"{"id":"u","timeZone":"+14:60"}"#, #""+14:60" is not a time zone"#),
        ])
    func badUsers(body: String, message: String) async throws {
        try await withPushMock { mock in
            let control = try mock.controlClient()
            let answer = try await control.request("POST", "users", json: Array(body.utf8))
            #expect(answer.status == 400, "\(answer.text)")
            #expect(answer.errorMessage?.contains(message) == true, "\(answer.text)")
            #expect(mock.userDirectory.users.isEmpty)
            await control.close()
        }
    }

    /// Foundation's decoder calls such a body "not valid JSON", at no place.
    @Test(
        "a number no Swift number holds is a 400 naming it and its place",
        arguments: [
            (
                "users", #"{"id":"u","preferences":{"caps":[{"limit":99999999999999999999,"window":"7d"}]}}"#,
                ".preferences.caps[0].limit: the number 99999999999999999999 is out of range"
            ),
            (
                "faults", #"{"action":{"type":"reset"},"trigger":{"probability":1e400}}"#,
                ".trigger.probability: the number 1e400 is out of range"
            ),
            (
                "apns/tokens", #"[{"token":"aa","expireAfterSends":-99999999999999999999}]"#,
                "[0].expireAfterSends: the number -99999999999999999999 is out of range"
            ),
            (
                "engagement/model", #"{"seed":-1,"rules":[{"open":0.5}]}"#,
                "a number does not fit its member: a fraction or a negative number where a whole or non-negative one is expected (.seed = -1, .rules[0].open = 0.5)"
            ),
            (
                "users", #"{"id":"u","preferences":{"caps":[{"limit":1.5,"window":"7d"}]}}"#,
                "a number does not fit its member: a fraction or a negative number where a whole or non-negative one is expected (.preferences.caps[0].limit = 1.5)"
            ),
            // Foundation refuses an escaped lone surrogate (JSON allows it) with the same words:
            // with no number to blame, they stand.
            ("users", #"{"id":"a\uD800b","preferences":{"caps":[{"limit":2,"window":"7d"}]}}"#, "The given data was not valid JSON."),
        ])
    func outOfRangeNumbers(path: String, body: String, message: String) async throws {
        try await withPushMock { mock in
            let control = try mock.controlClient()
            let answer = try await control.request(path.hasPrefix("engagement") ? "PUT" : "POST", path, json: Array(body.utf8))
            #expect(answer.status == 400, "\(answer.text)")
            #expect(answer.errorMessage?.hasPrefix(message) == true, "\(answer.text)")
            await control.close()
        }
    }

    /// Each body once skipped a member it did not know, so a misspelt `expireAfterSend` left
    /// the token's default lifecycle in force without a word; the previous definition is left
    /// as it was.
    @Test(
        "a misspelt member in a definition is a 400 naming it and the members taken",
        arguments: [
            (
                "POST", "apns/tokens",
                #"{"token":"\#(String(repeating: "ab", count: 32))","bundleId":"dev.pushmock.sample","expireAfterSend":3}"#,
                #"unknown member "expireAfterSend" in an APNs token (expected: token, bundleId, topic"#
            ),
            (
                "PATCH", "apns/tokens/\(String(repeating: "cd", count: 32))", #"{"expireAfterSend":3}"#,
                #"unknown member "expireAfterSend" in an APNs token change (expected: bundleId"#
            ),
            (
                "POST", "apns/teams", #"{"teamId":"TEAM000001","bundleIds":["a.b"],"bundleID":["c.d"]}"#,
                #"unknown member "bundleID" in an APNs team"#
            ),
            (
                "POST", "expo/tokens",
                #"[{"token":"ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]"},{"token":"ExponentPushToken[bbbbbbbbbbbbbbbbbbbbbb]","projet":"@a/b"}]"#,
                #"[1]: unknown member "projet" in an Expo token (expected: token, project"#
            ),
            (
                "POST", "expo/projects", #"{"name":"@a/b","requireAccesToken":true}"#,
                #"unknown member "requireAccesToken" in an Expo project"#
            ),
            (
                "POST", "categories", #"{"id":"c1","actions":[],"ap":"a.b"}"#,
                #"unknown member "ap" in a category (expected: id, app, actions"#
            ),
            (
                "POST", "categories", #"{"id":"c1","actions":[{"id":"a","title":"A"},{"id":"b","title":"B","destructve":true}]}"#,
                #"unknown member "destructve" in a category's action at actions[1] (expected: id, title, destructive, foreground"#
            ),
            (
                "POST", "users/u1/events", #"{"name":"open","timeMilliseconds":0}"#,
                #"unknown member "timeMilliseconds" in an app event (it happens at the gateway's now) (expected: name, properties)"#
            ),
        ])
    func unknownMembers(method: String, path: String, body: String, message: String) async throws {
        try await withPushMock { mock in
            let control = try mock.controlClient()
            if path.hasPrefix("users/") {
                _ = try await control.request("POST", "users", json: Array(#"{"id":"u1"}"#.utf8))
            }
            if method == "PATCH" {
                let token = String(path.split(separator: "/").last!)
                _ = try await control.request(
                    "POST", "apns/tokens", json: Array(#"{"token":"\#(token)","bundleId":"dev.pushmock.sample"}"#.utf8))
            }
            let answer = try await control.request(method, path, json: Array(body.utf8))
            #expect(answer.status == 400, "\(answer.text)")
            #expect(answer.errorMessage?.hasPrefix(message) == true, "\(answer.text)")
            #expect(
                try await control.request("GET", "expo/tokens").text.contains("aaaaaaaaaaaaaaaaaaaaaa") == false,
                "nothing of a refused body is kept")
            await control.close()
        }
    }

    @Test("health and info")
    func healthAndInfo() async throws {
        try await withPushMock { mock in
            let health = try await Self.curl(mock, "GET", "/_pushmock/health")
            #expect(health.status == 200)
            #expect(health.json?["status"]?.stringValue == "ok")
            let info = try await Self.curl(mock, "GET", "/_pushmock/info")
            #expect(info.status == 200)
            #expect(info.json?["tls"]?["port"]?.intValue == mock.tlsPort)
            #expect(info.json?["apnsSampleKey"]?["keyId"]?.stringValue == mock.sampleKey.keyID)
            // Same over HTTP/2 with TLS.
            let connection = try await mock.connect()
            let overH2 = try await Self.http2(connection, "GET", "/_pushmock/health")
            #expect(overH2.status == 200)
            await connection.close()
        }
    }

    @Test("list, filter, fetch and clear recordings")
    func recordings() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            _ = try await connection.send(try mock.apnsRequest())
            _ = try await connection.send(try mock.apnsRequest(payload: ""))
            _ = try await connection.send(try mock.apnsRequest(token: String(repeating: "ab", count: 32)))
            await connection.close()

            let all = try await Self.curl(mock, "GET", "/_pushmock/recordings")
            #expect(all.status == 200)
            #expect(all.json?["count"]?.intValue == 3)
            #expect(all.json?["records"]?[0]?["seq"]?.intValue == 3, "newest first")
            let failed = try await Self.curl(mock, "GET", "/_pushmock/recordings?status=400&reason=PayloadEmpty")
            #expect(failed.json?["count"]?.intValue == 1)
            let byToken = try await Self.curl(mock, "GET", "/_pushmock/recordings?token=\(String(repeating: "AB", count: 32))")
            #expect(byToken.json?["count"]?.intValue == 1)
            let page = try await Self.curl(mock, "GET", "/_pushmock/recordings?limit=1")
            #expect(page.json?["count"]?.intValue == 1)
            #expect(page.json?["total"]?.intValue == 3)
            let one = try await Self.curl(mock, "GET", "/_pushmock/recordings/2")
            #expect(one.json?["response"]?["reason"]?.stringValue == "PayloadEmpty")
            #expect(try await Self.curl(mock, "GET", "/_pushmock/recordings/99").status == 404)
            #expect(try await Self.curl(mock, "GET", "/_pushmock/recordings?limit=zero").status == 400)
            let cleared = try await Self.curl(mock, "DELETE", "/_pushmock/recordings")
            #expect(cleared.json?["cleared"]?.intValue == 3)
            #expect(mock.recordings.count == 0)
        }
    }

    @Test("register a key, then authenticate with it")
    func registerKey() async throws {
        try await withPushMock { mock in
            let key = APNsSigningKey.generate(keyID: "RUNTIME001", teamID: "RUNTIMETEA")
            let body =
                #"{"keyId":"RUNTIME001","teamId":"RUNTIMETEA","privateKeyPem":\#(Self.jsonString(key.pkcs8PEM)),"environments":["sandbox"]}"#
            let registered = try await Self.curl(mock, "POST", "/_pushmock/apns/keys", body: body)
            #expect(registered.status == 201)
            let keys = try await Self.curl(mock, "GET", "/_pushmock/apns/keys")
            #expect(keys.json?.arrayValue?.contains { $0["keyId"]?.stringValue == "RUNTIME001" } == true)
            let jwt = try mock.providerToken(key: key)
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest(providerToken: .some(jwt))))
            expectAPNsError(
                try await mock.sendOnNewConnection(try mock.apnsRequest(providerToken: .some(jwt)), authority: "api.push.apple.com"),
                status: 403,
                reason: "BadEnvironmentKeyInToken"
            )
            #expect(try await Self.curl(mock, "DELETE", "/_pushmock/apns/keys/RUNTIME001").status == 200)
            expectAPNsError(
                try await mock.sendOnNewConnection(try mock.apnsRequest(providerToken: .some(jwt))), status: 403,
                reason: "InvalidProviderToken")
            #expect(try await Self.curl(mock, "POST", "/_pushmock/apns/keys", body: #"{"keyId":"X","teamId":"Y"}"#).status == 400)
        }
    }

    @Test("register tokens, mark one uninstalled, then see 410 with that time")
    func registerTokens() async throws {
        try await withPushMock { mock in
            let token = PushMockHarness.sampleDeviceToken
            let body =
                #"[{"token":"\#(token)","bundleId":"\#(mock.topic)"},{"token":"\#(String(repeating: "cd", count: 32))","bundleId":"com.example.other","environment":"production"}]"#
            let registered = try await Self.curl(mock, "POST", "/_pushmock/apns/tokens", body: body)
            #expect(registered.status == 201)
            #expect(try await Self.curl(mock, "GET", "/_pushmock/apns/tokens").json?.arrayValue?.count == 2)
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            let uninstall = #"{"token":"\#(token)","bundleId":"\#(mock.topic)","state":"unregistered","at":"2026-11-21T10:02:00Z"}"#
            #expect(try await Self.curl(mock, "POST", "/_pushmock/apns/tokens", body: uninstall).status == 201)
            let gone = try await mock.sendOnNewConnection(try mock.apnsRequest())
            #expect(gone.status == 410)
            #expect(gone.apnsTimestamp == ISO8601Milliseconds.parse("2026-11-21T10:02:00Z"))
            let shown = try await Self.curl(mock, "GET", "/_pushmock/apns/tokens/\(token)")
            #expect(shown.json?["state"]?.stringValue == "unregistered")
            #expect(try await Self.curl(mock, "DELETE", "/_pushmock/apns/tokens/\(token)").status == 200)
            #expect(try await Self.curl(mock, "GET", "/_pushmock/apns/tokens/\(token)").status == 404)
            let bad = try await Self.curl(mock, "POST", "/_pushmock/apns/tokens", body: #"{"token":"xyz","bundleId":"a"}"#)
            #expect(bad.status == 400)
            #expect(bad.json?["error"]?.stringValue?.contains("hex") == true)
        }
    }

    @Test("teams limit team-scoped keys to their apps")
    func teams() async throws {
        try await withPushMock { mock in
            let body = #"{"teamId":"\#(mock.sampleKey.teamID)","bundleIds":["com.example.only"]}"#
            #expect(try await Self.curl(mock, "POST", "/_pushmock/apns/teams", body: body).status == 201)
            expectAPNsError(try await mock.sendOnNewConnection(try mock.apnsRequest()), status: 403, reason: "InvalidProviderToken")
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest(topic: "com.example.only")))
        }
    }

    /// Apple issues key and team IDs of ten uppercase letters and digits, and bundle IDs of
    /// letters, digits, hyphens and periods: a declaration real APNs could never match is
    /// refused at once, with the reason, on every path that declares one.
    @Test(
        "identifiers Apple never issues are refused with the reason",
        arguments: [
            ("/_pushmock/apns/keys", #"{"keyId":"abc123defg","teamId":"ABCDE12345","publicKeyPem":"-"}"#, "key ID \"abc123defg\""),
            ("/_pushmock/apns/keys", #"{"keyId":"","teamId":"ABCDE12345","publicKeyPem":"-"}"#, "key ID \"\""),
            ("/_pushmock/apns/keys", #"{"keyId":"ABC123DEFG","teamId":"TEAM","publicKeyPem":"-"}"#, "team ID \"TEAM\""),
            (
                "/_pushmock/apns/keys", #"{"keyId":"ABC123DEFG","teamId":"ABCDE12345","publicKeyPem":"-","relatedKeyId":"x"}"#,
                "relatedKeyId \"x\""
            ),
            (
                "/_pushmock/apns/keys", #"{"keyId":"ABC123DEFG","teamId":"ABCDE12345","publicKeyPem":"-","bundleIds":["com.example app"]}"#,
                "bundle ID \"com.example app\""
            ),
            ("/_pushmock/apns/teams", #"{"teamId":"","bundleIds":["com.example.app"]}"#, "team ID \"\""),
            ("/_pushmock/apns/teams", #"[{"teamId":"ABCDE12345","bundleIds":[""]}]"#, "bundle ID \"\""),
            ("/_pushmock/apns/tokens", #"{"token":"aabbccdd00112233","bundleId":""}"#, "bundle ID \"\""),
            ("/_pushmock/apns/tokens/aabbccdd00112233", #"{"bundleId":"com/example"}"#, "bundle ID \"com/example\""),
        ])
    func refusedIdentifiers(path: String, body: String, reason: String) async throws {
        try await withPushMock { mock in
            let answer = try await Self.curl(mock, "POST", path, body: body)
            #expect(answer.status == 400, "\(answer.status) \(answer.json as Any)")
            let message = answer.json?["error"]?.stringValue ?? ""
            #expect(message.contains(reason), "\(message)")
            #expect(try await Self.curl(mock, "GET", "/_pushmock/apns/teams").json?.arrayValue?.isEmpty != false)
        }
    }

    /// A body that is an array is read as an array: the problem reported is its element's,
    /// with the element's place, not "expected an object".
    @Test("a problem in an array's element names the element")
    func arrayElementProblem() async throws {
        try await withPushMock { mock in
            for (path, body, reason) in [
                (
                    "/_pushmock/apns/tokens", #"[{"token":"aabbccdd00112233"},{"token":"aabbccdd00112244","environment":""}]"#,
                    "[1].environment"
                ),
                ("/_pushmock/fcm/tokens", #"[{"token":"abc:APA91b-sample"},{"token":7}]"#, "[1].token"),
                ("/_pushmock/expo/tokens", #"[{"token":"ExponentPushToken[a]","platform":"web"}]"#, "[0].platform"),
            ] {
                let answer = try await Self.curl(mock, "POST", path, body: body)
                #expect(answer.status == 400, "\(path): \(answer.status)")
                let message = answer.json?["error"]?.stringValue ?? ""
                #expect(message.hasPrefix(reason), "\(path): \(message)")
                #expect(!message.contains("Dictionary"), "\(path): \(message)")
            }
        }
    }

    /// schemathesis found both: a token whose count a tester set near `Int.max` took the
    /// gateway down when `expireAfterSends` was added to it, and so did a webhook timeout of
    /// centuries once a push fired it.
    @Test(
        "counts and waits at their limits are answered, never a crash",
        arguments: [
            ("apns/tokens", "aabbccdd00112233", #"{"token":"aabbccdd00112233","sends":9223372036854775807}"#),
            ("fcm/tokens", "abcdefghij:klmnop", #"{"token":"abcdefghij:klmnop","sends":9223372036854775807}"#),
            ("expo/tokens", "ExpoPushToken[abc]", #"{"token":"ExpoPushToken[abc]","sends":9223372036854775807}"#),
        ])
    func limits(area: String, token: String, definition: String) async throws {
        try await withPushMock { mock in
            #expect(try await Self.curl(mock, "POST", "/_pushmock/\(area)", body: definition).status == 201)
            let path = "/_pushmock/\(area)/\(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            let patched = try await Self.curl(mock, "PATCH", path, body: #"{"expireAfterSends":1}"#)
            #expect(patched.status == 200, "\(patched.json as Any)")
            #expect(patched.json?["expireAfterSends"]?.intValue == Int.max)
            let negative = try await Self.curl(
                mock, "POST", "/_pushmock/\(area)", body: definition.replacingOccurrences(of: "9223372036854775807", with: "-1"))
            #expect(negative.status == 400)
            #expect(negative.json?["error"]?.stringValue?.contains("sends must be 0 or more") == true)
            for (member, value) in [
                ("timeout", "10000000000"), ("timeout", "\"2h\""), ("initialBackoff", "\"-5s\""), ("maxBackoff", "\"400d\""),
            ] {
                let webhook = try await Self.curl(
                    mock, "POST", "/_pushmock/webhooks", body: #"{"url":"http://127.0.0.1:9/","\#(member)":\#(value)}"#)
                #expect(webhook.status == 400, "\(member)=\(value): \(webhook.status)")
                #expect(webhook.json?["error"]?.stringValue?.contains("webhook \(member)") == true, "\(webhook.json as Any)")
            }
            #expect(try await Self.curl(mock, "GET", "/_pushmock/health").status == 200)
        }
    }

    /// FCM tokens carry a `:`, which clients percent-encode in a path (`%3A`), as they do an
    /// Expo token's brackets: every route takes its path segments decoded.
    @Test("a percent-encoded token in a path is the token")
    func percentEncodedTokens() async throws {
        try await withPushMock { mock in
            #expect(try await Self.curl(mock, "POST", "/_pushmock/fcm/tokens", body: #"{"token":"abcdefghij:klmnop"}"#).status == 201)
            for method in ["GET", "PATCH"] {
                let answer = try await Self.curl(
                    mock, method, "/_pushmock/fcm/tokens/abcdefghij%3Aklmnop", body: method == "PATCH" ? "{}" : nil)
                #expect(answer.status == 200, "\(method): \(answer.json as Any)")
                #expect(answer.json?["token"]?.stringValue == "abcdefghij:klmnop")
            }
            let missing = try await Self.curl(mock, "GET", "/_pushmock/devices/fcm/abcdefghij%3Aklmnop")
            #expect(missing.status == 404, "\(missing.json as Any)")
            #expect(missing.json?["error"]?.stringValue?.hasPrefix("no simulated device fcm/abcdefghij:klmnop:") == true)
            for method in ["PATCH", "GET"] {
                let device = try await Self.curl(
                    mock, method, "/_pushmock/devices/fcm/abcdefghij%3Aklmnop", body: method == "PATCH" ? #"{"connectivity":"idle"}"# : nil)
                #expect(device.status == 200, "\(method): \(device.json as Any)")
                #expect(device.json?["token"]?.stringValue == "abcdefghij:klmnop")
                #expect(device.json?["connectivity"]?.stringValue == "idle")
            }
            #expect(try await Self.curl(mock, "DELETE", "/_pushmock/fcm/tokens/abcdefghij%3Aklmnop").status == 200)
            #expect(try await Self.curl(mock, "GET", "/_pushmock/fcm/tokens/abcdefghij:klmnop").status == 404)
        }
    }

    /// A device is addressed by its service's token, checked as that service's endpoint checks
    /// it: no device can exist for a token the service refuses, so such a path is a mistake
    /// (schemathesis found `POST /devices/expo/true` creating an Expo device named `true`).
    @Test(
        "a device path's token is checked as its service checks tokens",
        arguments: [
            ("apns", "ExponentPushToken%5Babc%5D", "ExponentPushToken[abc] is not an APNs device token (an even-length hex string)"),
            ("fcm", "true", "true is not a well-formed FCM registration token"),
            ("expo", "true", "Expo token true: not an Expo push token (ExponentPushToken[…] or ExpoPushToken[…])"),
            (
                "expo", "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0",
                "Expo token 00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0: not an Expo push token (ExponentPushToken[…] or ExpoPushToken[…])"
            ),
        ])
    func deviceTokensChecked(service: String, token: String, error: String) async throws {
        try await withPushMock { mock in
            for (method, suffix, body) in [
                ("POST", "", #"{"connectivity":"online"}"#), ("PATCH", "", #"{"permission":"denied"}"#), ("GET", "", nil),
                ("DELETE", "", nil), ("POST", "/notifications/n1/open", "{}"),
            ] {
                let answer = try await Self.curl(mock, method, "/_pushmock/devices/\(service)/\(token)\(suffix)", body: body)
                #expect(answer.status == 400, "\(method) \(suffix): \(answer.json as Any)")
                #expect(answer.json?["error"]?.stringValue == error, "\(method) \(suffix)")
            }
            let devices = try await Self.curl(mock, "GET", "/_pushmock/devices")
            #expect(devices.json?["devices"]?.arrayValue?.isEmpty == true, "\(devices.json as Any)")
            let valid = try await Self.curl(
                mock, "POST", "/_pushmock/devices/expo/ExponentPushToken%5BxxxxxxxxxxxxxxxxxxxxxX%5D", body: #"{"connectivity":"offline"}"#)
            #expect(valid.status == 200, "\(valid.json as Any)")
            #expect(valid.json?["token"]?.stringValue == "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxX]")
        }
    }

    /// A preset parameter the preset does not read was ignored without a word: `{"fraction":
    /// 0.5}` on `outage` made a whole outage.
    @Test("a preset parameter the preset does not take, or no preset takes, is 400")
    func presetParameters() async throws {
        try await withPushMock { mock in
            let ignored = try await Self.curl(mock, "POST", "/_pushmock/faults/presets/outage", body: #"{"fraction":0.5}"#)
            #expect(ignored.status == 400)
            #expect(
                ignored.json?["error"]?.stringValue
                    == "preset outage: outage does not take fraction; it takes forSeconds, platform, retryAfter, startsInSeconds")
            let misspelt = try await Self.curl(mock, "POST", "/_pushmock/faults/presets/outage", body: #"{"forSecond":60}"#)
            #expect(misspelt.status == 400)
            #expect(
                misspelt.json?["error"]?.stringValue?.hasPrefix(
                    #".forSecond: unknown member "forSecond" in a preset's parameters (expected: count, forSeconds,"#) == true,
                "\(misspelt.json as Any)")
            #expect(try await Self.curl(mock, "GET", "/_pushmock/faults").json?.arrayValue?.isEmpty == true)
            let taken = try await Self.curl(
                mock, "POST", "/_pushmock/faults/presets/device-token-expiry", body: #"{"fraction":0.5,"platform":"fcm"}"#)
            #expect(taken.status == 201, "\(taken.json as Any)")
            #expect(taken.json?.arrayValue?.first?["match"]?["tokenFraction"]?.doubleValue == 0.5)
        }
    }

    @Test("unknown endpoints and methods are explained")
    func errors() async throws {
        try await withPushMock { mock in
            let unknown = try await Self.curl(mock, "GET", "/_pushmock/nothing")
            #expect(unknown.status == 404)
            #expect(unknown.json?["error"]?.stringValue?.contains("docs/control-api.md") == true)
            #expect(try await Self.curl(mock, "PATCH", "/_pushmock/recordings").status == 405)
            #expect(try await Self.curl(mock, "POST", "/_pushmock/apns/tokens", body: "not json").status == 400)
        }
    }

    static func jsonString(_ text: String) -> String {
        var writer = JSONWriter()
        writer.string(text)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
