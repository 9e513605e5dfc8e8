import PushMockCore
import PushMockJSON
import Testing

/// Seeded random mutations of a valid request: the validator must never crash, and must answer
/// either success or a well-formed 400 `INVALID_ARGUMENT`.
@Suite("FCM validator fuzzing")
struct FCMValidatorFuzzTests {
    /// Names worth inserting: every schema field in both spellings, near misses, reserved keys.
    static let names: [String] = {
        var names: Set<String> = ["", "x", "from", "google.x", "gcm.notification.y", "Token", "TTL", "apns-priority", "apns-push-type"]
        for entry in FCMSchema.allMessageTypes {
            for field in entry.schema.fields {
                names.insert(field.name)
                names.insert(field.jsonName)
            }
        }
        return names.sorted()
    }()

    static let strings: [String] = [
        "", "a", "news", "/topics/news", "#112233", "#12", "3.5s", "3", "-1s", "2419201s", "HIGH", "high", "URGENT",
        "2024-01-02T03:04:05Z", "yesterday", "https://x", "http://x", "'a' in topics", "'a' in topics &&", "10", "5", "7",
        "voip", "alert", "fake-token-0001", "caf\u{E9}", "\u{0}", String(repeating: "z", count: 3000),
    ]

    struct Mutator {
        var random: FastRandom

        mutating func pick<T>(_ items: [T]) -> T {
            items[Int(random.next() % UInt64(items.count))]
        }

        mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }

        mutating func randomValue(depth: Int = 0) -> JSONValue {
            switch random.next() % (depth > 2 ? 5 : 7) {
            case 0: return .null
            case 1: return .bool(chance(50))
            case 2: return pick([JSONValue(0), JSONValue(-1), JSONValue(7), .number("1.5"), .number("1e400"), .number("2147483648")])
            case 3, 4: return .string(pick(FCMValidatorFuzzTests.strings))
            case 5:
                return .array((0..<Int(random.next() % 3)).map { _ in randomValue(depth: depth + 1) })
            default:
                var object = JSONObject()
                for _ in 0..<Int(random.next() % 3) {
                    object.append(key: pick(FCMValidatorFuzzTests.names), value: randomValue(depth: depth + 1))
                }
                return .object(object)
            }
        }

        /// Mutates one randomly chosen place of the tree.
        mutating func mutate(_ value: JSONValue, depth: Int = 0) -> JSONValue {
            switch value {
            case .object(var object) where !object.isEmpty && chance(75):
                let index = Int(random.next() % UInt64(object.count))
                switch random.next() % 6 {
                case 0: object.members[index].value = mutate(object.members[index].value, depth: depth + 1)
                case 1: object.members.remove(at: index)
                case 2: object.append(key: pick(FCMValidatorFuzzTests.names), value: randomValue())
                case 3: object.members[index].key = pick(FCMValidatorFuzzTests.names)
                case 4: object.append(key: object.members[index].key, value: object.members[index].value)
                default: object.members[index].value = randomValue()
                }
                return .object(object)
            case .array(var elements) where !elements.isEmpty && chance(75):
                let index = Int(random.next() % UInt64(elements.count))
                elements[index] = chance(50) ? mutate(elements[index], depth: depth + 1) : randomValue()
                return .array(elements)
            default:
                return randomValue()
            }
        }

        /// Byte-level damage: flip, insert, delete, truncate.
        mutating func damage(_ bytes: [UInt8]) -> [UInt8] {
            var bytes = bytes
            guard !bytes.isEmpty else { return bytes }
            let index = Int(random.next() % UInt64(bytes.count))
            switch random.next() % 4 {
            case 0: bytes[index] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            case 1: bytes.insert(pick(Array("{}[]\",:\\ 0tn-".utf8) + [0xFF, 0xC3]), at: index)
            case 2: bytes.remove(at: index)
            default: bytes.removeSubrange(index...)
            }
            return bytes
        }
    }

    @Test("5,000 seeded mutations: success or a well-formed 400")
    func mutations() throws {
        var mutator = Mutator(random: FastRandom(seed: 0xFC3_2026))
        let valid = FCMSamples.request
        var outcomes = (success: 0, failure: 0)
        for iteration in 0..<5_000 {
            var document = valid
            for _ in 0...Int(mutator.random.next() % 3) {
                document = mutator.mutate(document)
            }
            var bytes = document.compactBytes
            if mutator.chance(20) {
                bytes = mutator.damage(bytes)
            }
            let options = FCMValidationOptions(
                identifierRule: mutator.chance(20) ? .realistic : .lenient,
                reservedDataKeys: mutator.chance(20) ? .legacyPrefixes : .documented,
                genericInvalidArgumentMessages: mutator.chance(10)
            )
            switch FCMMessageValidator.validate(body: bytes, options: options) {
            case .success(let request):
                outcomes.success += 1
                #expect(request.message.payloadSize >= 0)
            case .failure(let error):
                outcomes.failure += 1
                #expect(error.httpStatus == 400, "iteration \(iteration): \(error)")
                #expect(error.status == .invalidArgument, "iteration \(iteration)")
                #expect(!error.message.isEmpty, "iteration \(iteration)")
                let body = try JSONValue(parsing: error.body())
                #expect(body["error"]?["code"] == 400)
                #expect(body["error"]?["message"]?.stringValue == error.message)
                #expect((try? JSONValue(parsing: error.body(prettyPrinted: true))) == body)
            }
        }
        // Both paths must actually be exercised.
        #expect(outcomes.success > 100)
        #expect(outcomes.failure > 1_000)
    }
}
