import PushMockJSON
import PushMockTestSupport
import Testing

@Suite("JSON fuzzing")
struct JSONFuzzTests {
    /// Bytes that are likely to change the meaning of a document.
    static let interestingBytes: [UInt8] =
        Array("{}[]\":,\\ \t\n0123456789.eE+-tfnulu".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF]

    static func isUTF8Related(_ reason: JSONSyntaxError.Reason) -> Bool {
        switch reason {
        case .invalidUTF8, .unexpectedEndOfInput: true
        default: false
        }
    }

    static func mutate(_ input: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<6, using: &generator) {
            case 0 where !bytes.isEmpty:
                bytes[position] = interestingBytes.randomElement(using: &generator)!
            case 1 where !bytes.isEmpty:
                bytes[position] = UInt8.random(in: 0...255, using: &generator)
            case 2:
                bytes.insert(interestingBytes.randomElement(using: &generator)!, at: position)
            case 3 where !bytes.isEmpty:
                bytes.remove(at: position)
            case 4 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...8, using: &generator))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            default:
                bytes.removeSubrange(position..<bytes.count)
            }
        }
        return bytes
    }

    @Test("10,000 seeded mutations never crash; scanner and parser agree on validity and errors")
    func mutations() throws {
        var generator = SeededGenerator(seed: 0x5EED_0001)
        let seeds = JSONCorpus.valid.map(\.bytes).filter { $0.count < 4096 }
        var validCount = 0
        for iteration in 0..<10_000 {
            let input = Self.mutate(seeds.randomElement(using: &generator)!, using: &generator)
            let scanned = JSONScanner.scan(input)
            let parsed = Result { () throws(JSONSyntaxError) in try JSONValue(parsing: input) }
            switch parsed {
            case .success(let value):
                validCount += 1
                #expect(scanned.isValid, "iteration \(iteration): \(input)")
                #expect(scanned.topLevelKind == value.kind)
                // A valid mutant must also survive compaction and re-serialisation.
                let compact = JSONCompactor.compacted(input)
                #expect(try JSONValue(parsing: compact) == value)
                #expect(try JSONValue(parsing: value.compactBytes) == value)
            case .failure(let error):
                #expect(!scanned.isValid, "iteration \(iteration): parser rejected \(input) with \(error)")
                if let scanError = scanned.error {
                    #expect(scanError.offset <= input.count)
                    // The two implementations check UTF-8 differently (byte ranges vs decoded
                    // code points), so only there may they disagree on where and why.
                    if !Self.isUTF8Related(scanError.reason) || !Self.isUTF8Related(error.reason) {
                        #expect(scanError == error, "iteration \(iteration): \(input)")
                    }
                }
            }
        }
        // The mutations must exercise both outcomes.
        #expect(validCount > 500)
        #expect(validCount < 9_500)
    }

    @Test("random bytes never crash either implementation")
    func randomBytes() {
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<64, using: &generator)
            let input = (0..<length).map { _ in Self.interestingBytes.randomElement(using: &generator)! }
            let scanned = JSONScanner.scan(input)
            let parsed = try? JSONValue(parsing: input)
            #expect(scanned.isValid == (parsed != nil))
            _ = JSONCompactor.compacted(input)
            _ = JSONScanner.rangeOfValue(atKeyPath: ["a", "b"], in: input)
            let document = JSONScanner.rangeOfDocument(in: input)
            _ = JSONScanner.memberValueRanges(inObjectAt: document, in: input)
            _ = JSONScanner.rangeOfMember(named: "a", inObjectAt: document, in: input)
        }
    }
}
