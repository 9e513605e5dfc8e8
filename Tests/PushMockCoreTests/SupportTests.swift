import PushMockCore
import Testing

@Suite("Support types")
struct SupportTests {
    @Test("header list keeps order, duplicates and bytes")
    func headerList() {
        var list = HTTPHeaderList()
        list.append(name: "apns-topic", value: "a")
        list.append(name: "x", value: "")
        list.append(name: "apns-topic", value: "é")
        #expect(list.count == 3)
        #expect(list.count(of: .apnsTopic) == 2)
        #expect(list.first(.apnsTopic) == "a")
        #expect(list.value(at: 2) == "é")
        #expect(list.value(at: 1) == "")
        #expect(list.pairs.map(\.name) == ["apns-topic", "x", "apns-topic"])
        #expect(list.nameLength(at: 0) == 10 && list.nameLength(at: 1) == 1)
        #expect(list.nameStarts(at: 0, with: "apns-") && !list.nameStarts(at: 1, with: "apns-") && list.nameStarts(at: 1, with: ""))
        #expect(!list.nameStarts(at: 0, with: "apns-topic-longer"))
        #expect(list == HTTPHeaderList([("apns-topic", "a"), ("x", ""), ("apns-topic", "é")]))
        #expect(list != HTTPHeaderList([("apns-topic", "a")]))
    }

    @Test(
        "header list: one arena whatever the growth path — fields and bytes survive every table growth",
        arguments: [(0, 0), (1, 4), (3, 64), (8, 0), (40, 2_000)] as [(Int, Int)]
    )
    func headerListGrowth(reservedFields: Int, reservedBytes: Int) {
        var list = HTTPHeaderList(fields: reservedFields, bytes: reservedBytes)
        var expected: [(String, String)] = []
        for index in 0..<37 {
            let name = "x-field-\(index)"
            let value = String(repeating: "v", count: index * 7) + (index.isMultiple(of: 5) ? "é" : "")
            if index.isMultiple(of: 2) {
                list.append(name: name, value: value)
            } else {
                name.utf8.withContiguousStorageIfAvailable { name in
                    value.utf8.withContiguousStorageIfAvailable { value in
                        list.append(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer(value))
                    }
                }
            }
            expected.append((name, value))
            #expect(list.count == index + 1)
            #expect(list.name(at: 0) == "x-field-0" && list.value(at: index) == value)
        }
        #expect(list.pairs.map(\.name) == expected.map(\.0))
        #expect(list.pairs.map(\.value) == expected.map(\.1))
        #expect(list.byteCount == expected.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count })
        let rebuilt = HTTPHeaderList(expected)
        #expect(list == rebuilt && list.hashValue == rebuilt.hashValue)

        // The ranges index the arena `withUnsafeStorage` lends, as the HTTP/2 encoder reads it.
        list.withUnsafeStorage { storage in
            for index in list.indices {
                #expect(Array(storage[list.nameRange(at: index)]) == Array(expected[index].0.utf8))
                #expect(Array(storage[list.valueRange(at: index)]) == Array(expected[index].1.utf8))
            }
        }
        var visited: [(String, String)] = []
        list.forEachField { name, value in
            visited.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        #expect(visited.map(\.0) == expected.map(\.0) && visited.map(\.1) == expected.map(\.1))

        // A copy is a value: appending to it leaves the original alone.
        var copy = list
        copy.append(name: "x-late", value: "1")
        #expect(copy.count == 38 && list.count == 37 && copy.first(named: "x-late") == "1" && list.first(named: "x-late") == nil)

        list.removeAll()
        #expect(list.isEmpty && list.byteCount == 0 && list != copy)
        list.append(name: "apns-topic", value: "again")
        #expect(list == HTTPHeaderList([("apns-topic", "again")]))
        list.removeAll(keepingCapacity: false)
        #expect(list.isEmpty && list.byteCount == 0)
        list.append(.apnsTopic, value: "third")
        #expect(list.first(.apnsTopic) == "third" && list.count == 1)
    }

    @Test("replacing values: in one pass, in order, sharing the list when nothing changes")
    func replacingValues() {
        let list = HTTPHeaderList([("authorization", "bearer secret"), ("x", "1"), ("cookie", "c=1"), ("x", "é"), ("cookie", "")])
        let replaced = list.replacingValues { index in
            list.nameEquals(index, .authorization) ? "[hidden]" : list.name(at: index) == "cookie" ? "[withheld]" : nil
        }
        #expect(
            replaced
                == HTTPHeaderList([
                    ("authorization", "[hidden]"), ("x", "1"), ("cookie", "[withheld]"), ("x", "é"), ("cookie", "[withheld]"),
                ]))
        #expect(list.value(at: 0) == "bearer secret", "the original is unchanged")
        #expect(list.replacingValues { _ in nil } == list)
        #expect(HTTPHeaderList().replacingValues { _ in "never asked" }.isEmpty)
    }

    @Test(
        "a request's path splits at its first '?'",
        arguments: [
            ("/3/device/abc", "/3/device/abc", nil),
            ("/_pushmock/exchanges?limit=5&after=2", "/_pushmock/exchanges", "limit=5&after=2"),
            ("/a?", "/a", ""),
            ("?x=1", "", "x=1"),
            ("/a?b?c", "/a", "b?c"),
            ("", "", nil),
            ("/é/ü?ß=1", "/é/ü", "ß=1"),
        ] as [(String, String, String?)]
    )
    func pathAndQuery(path: String, expectedPath: String, expectedQuery: String?) {
        let request = HTTPRequestMessage(method: "GET", path: path)
        #expect(String(request.pathWithoutQuery) == expectedPath)
        #expect(request.query.map(String.init) == expectedQuery)
    }

    @Test("UUIDs are version 4, canonical, unique, and repeat for a seed")
    func uuids() {
        var random = FastRandom()
        var seen: Set<String> = []
        for _ in 0..<10_000 {
            let id = random.uuidString()
            #expect(APNsMessageID.isValid(id.utf8))
            #expect(id == id.lowercased())
            #expect(Array(id)[14] == "4")
            #expect("89ab".contains(Array(id)[19]))
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
        var first = FastRandom(seed: 42)
        var second = FastRandom(seed: 42)
        #expect((0..<100).map { _ in first.next() } == (0..<100).map { _ in second.next() })
    }

    @Test("ISO 8601 round trip", arguments: [0, 1_700_000_000_123, 951_782_400_000, -1, 4_102_444_799_999] as [Int64])
    func iso8601(milliseconds: Int64) {
        let text = ISO8601Milliseconds.format(milliseconds)
        #expect(ISO8601Milliseconds.parse(text) == milliseconds, "\(text)")
    }

    @Test("ISO 8601 known values")
    func iso8601Known() {
        #expect(ISO8601Milliseconds.format(1_700_000_000_123) == "2023-11-14T22:13:20.123Z")
        #expect(ISO8601Milliseconds.format(951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(ISO8601Milliseconds.parse("2026-11-21T10:02:00Z") == 1_795_255_320_000)
        #expect(ISO8601Milliseconds.parse("2026-11-21T11:02:00+01:00") == 1_795_255_320_000)
        #expect(ISO8601Milliseconds.parse("2026-11-21T10:02:00.5Z") == 1_795_255_320_500)
        #expect(ISO8601Milliseconds.parse("2026-11-21") == nil)
        #expect(ISO8601Milliseconds.parse("2026-13-21T10:02:00Z") == nil)
    }

    /// Formatting is total: an unchecked Int64 (a crafted journal line, a query item before
    /// the range check) once trapped on overflow at Int64.min and on any year before 0.
    @Test(
        "ISO 8601 of every Int64: expanded years outside 0-9999 (as the journal always wrote them), no trap",
        arguments: [
            (Int64.min, "-292275055-05-16T16:47:04.192Z"),
            (Int64.max, "292278994-08-17T07:12:55.807Z"),
            (-62_167_219_200_001, "-0001-12-31T23:59:59.999Z"),
            (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
            (253_402_300_800_000, "10000-01-01T00:00:00.000Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
        ] as [(Int64, String)]
    )
    func iso8601Extremes(milliseconds: Int64, text: String) {
        #expect(ISO8601Milliseconds.format(milliseconds) == text)
    }

    @Test("virtual clock: frozen, set, advanced, resumed")
    func virtualClock() {
        let clock = VirtualClock(frozenAt: Timestamp(secondsSince1970: 1_000))
        #expect(clock.now() == Timestamp(secondsSince1970: 1_000))
        clock.advance(by: .seconds(90))
        #expect(clock.now() == Timestamp(secondsSince1970: 1_090))
        clock.set(to: Timestamp(secondsSince1970: 5_000))
        #expect(clock.now() == Timestamp(secondsSince1970: 5_000))
        #expect(clock.isFrozen)
        clock.freeze()
        #expect(clock.now() == Timestamp(secondsSince1970: 5_000), "freezing a frozen clock keeps its instant")
        clock.freeze(at: Timestamp(secondsSince1970: 6_000))
        #expect(clock.now() == Timestamp(secondsSince1970: 6_000))
        clock.set(to: Timestamp(secondsSince1970: 5_000))
        clock.resume()
        #expect(!clock.isFrozen)
        let running = clock.now()
        #expect(running >= Timestamp(secondsSince1970: 5_000))
        #expect(running < Timestamp(secondsSince1970: 5_010))
        clock.reset()
        #expect(clock.now() > Timestamp(secondsSince1970: 1_700_000_000))
        // A running clock frozen at an instant stands exactly there.
        clock.freeze(at: Timestamp(millisecondsSince1970: 1_795_000_000_123))
        #expect(clock.now() == Timestamp(millisecondsSince1970: 1_795_000_000_123))
        #expect(clock.isFrozen)
    }

    /// The Swift API takes any `Timestamp` and `Duration`: beyond the range they are taken as
    /// its nearest end, never an overflow trap or a reading the journal cannot spell.
    @Test("virtual clock: readings stay within years 1 to 9999")
    func virtualClockRange() async throws {
        let range = InputLimits.timestampMilliseconds
        let clock = VirtualClock(frozenAt: Timestamp(millisecondsSince1970: .max))
        #expect(clock.now().millisecondsSince1970 == range.upperBound)
        clock.advance(by: .seconds(Int64.min))
        #expect(clock.now().millisecondsSince1970 == range.lowerBound)
        clock.advance(by: .seconds(Int64.max))
        #expect(clock.now().millisecondsSince1970 == range.upperBound)
        clock.freeze(at: Timestamp(millisecondsSince1970: .min))
        #expect(clock.now().millisecondsSince1970 == range.lowerBound)

        clock.resume()
        clock.set(to: Timestamp(millisecondsSince1970: .max))
        #expect(!clock.isFrozen)
        #expect(clock.now().millisecondsSince1970 == range.upperBound)
        try await Task.sleep(for: .milliseconds(20))
        #expect(clock.now().millisecondsSince1970 == range.upperBound, "a running clock stands at the end")
        #expect(clock.offsetMilliseconds > 250_000_000_000_000, "its offset is the end's, not one that grew past it")
        clock.advance(by: .seconds(-60))
        let back = clock.now().millisecondsSince1970
        #expect(back >= range.upperBound - 60_000 && back < range.upperBound - 50_000, "moved back from the end")
        clock.advance(by: .seconds(Int64.max))
        #expect(clock.now().millisecondsSince1970 == range.upperBound)
    }

    @Test("whole milliseconds of durations beyond Int64 milliseconds saturate")
    func wholeMillisecondsSaturate() {
        #expect(Duration.seconds(Int64.max).wholeMilliseconds == .max)
        #expect(Duration.seconds(Int64.min).wholeMilliseconds == .min)
        #expect(Duration.milliseconds(-1500).wholeMilliseconds == -1500)
        #expect(Duration.seconds(9_223_372_036_854_775).wholeMilliseconds == 9_223_372_036_854_775_000)
    }

    @Test("timestamps round down to seconds")
    func timestampSeconds() {
        #expect(Timestamp(millisecondsSince1970: 1_999).secondsSince1970 == 1)
        #expect(Timestamp(millisecondsSince1970: -1).secondsSince1970 == -1)
        #expect((Timestamp(secondsSince1970: 10) - Timestamp(secondsSince1970: 4)) == .seconds(6))
    }

    @Test("HTTP/2 error codes by name", arguments: HTTP2ErrorCode.all)
    func errorCodes(code: HTTP2ErrorCode) {
        #expect(HTTP2ErrorCode(name: code.name) == code)
        #expect(HTTP2ErrorCode(name: code.name.lowercased()) == code)
        #expect(HTTP2ErrorCode(name: String(code.networkCode)) == code)
    }
}

@Suite("Accept-Encoding")
struct AcceptEncodingTests {
    /// RFC 9110 §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ). "q=0."
    /// refused gzip but got it.
    @Test(
        "gzip is allowed unless its weight is zero",
        arguments: [
            ("gzip", true), ("gzip;q=0", false), ("gzip;q=0.", false), ("gzip; q=0.000", false), ("gzip;q=0.001", true),
            ("gzip;q=1", true), ("*", true), ("*;q=0", false), ("br, deflate", false), ("identity, GZIP;Q=0.5", true), ("", false),
        ])
    func gzipAllowed(_ header: String, _ allowed: Bool) {
        #expect(HTTPContentCoding.acceptsGzip(header) == allowed)
    }
}

@Suite("Virtual clock under concurrent changes")
struct VirtualClockRaceTests {
    /// `POST /clock/advance` checked the target and then advanced in two steps: two advances
    /// of 900 years from 9000-01-01 both passed and the clock was clamped at 9999-12-31.
    @Test("of many concurrent advances that each fit but not together, only those that fit move the clock")
    func guardedAdvances() async {
        let start = Timestamp(millisecondsSince1970: 221_845_392_000_000)  // 9000-01-01T00:00:00Z
        let clock = VirtualClock(frozenAt: start)
        let step = Duration.seconds(Int64(900) * 365 * 86_400)
        let moved = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<32 {
                group.addTask { clock.advance(by: step, onlyIf: InputLimits.contains) }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(moved == 1)
        #expect(clock.now().millisecondsSince1970 == start.millisecondsSince1970 + step.wholeMilliseconds)
    }
}
