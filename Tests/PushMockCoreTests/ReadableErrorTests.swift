import Foundation
import PushMockCore
import Testing

@Suite("Errors people read")
struct ReadableErrorTests {
    @Test(
        "a file that cannot be read names the path and the system's reason, never NSCocoaErrorDomain",
        arguments: [
            ("/", "cannot read /: Is a directory"),
            ("/nonexistent/pushmock-file", "cannot read /nonexistent/pushmock-file: No such file or directory"),
        ])
    func unreadableFile(_ path: String, _ message: String) throws {
        do {
            _ = try Data(contentsOf: URL(fileURLWithPath: path))
            Issue.record("read \(path)")
        } catch {
            #expect(ReadableError.needsRewriting(error))
            #expect(ReadableError.description(of: error) == message)
            #expect("\(reason: error)" == String(message.split(separator: ": ", maxSplits: 1)[1]))
        }
        #expect(throws: FileReadFailure(path: path, reason: String(message.split(separator: ": ", maxSplits: 1)[1]))) {
            try FileContents.read(path)
        }
    }

    @Test("a file that cannot be written names the path and the reason")
    func unwritableFile() throws {
        do {
            try Data("x".utf8).write(to: URL(fileURLWithPath: "/nonexistent/pushmock-file"))
            Issue.record("wrote")
        } catch {
            // Foundation reports this as NSFileNoSuchFileError, which does not say read or write.
            #expect(ReadableError.description(of: error) == "/nonexistent/pushmock-file: No such file or directory")
        }
    }

    @Test("JSONSerialization's error says what is wrong with the JSON")
    func invalidJSON() throws {
        do {
            _ = try JSONSerialization.jsonObject(with: Data("{".utf8))
            Issue.record("parsed")
        } catch {
            let text = ReadableError.description(of: error)
            #expect(text.hasPrefix("not valid JSON: "), "\(text)")
            #expect(!text.contains("NSCocoaErrorDomain"))
        }
    }

    struct Limits: Decodable { var users: Int }
    struct Nested: Decodable { var limits: Limits }

    @Test(
        "a JSON value of the wrong kind is named in JSON's words, with where it is",
        arguments: [
            (#"[]"#, "expected an object, found an array"),
            (#"{"limits": []}"#, ".limits: expected an object, found an array"),
            (#"{"limits": {"users": "5"}}"#, ".limits.users: expected a number, found a string"),
            (#"{"limits": {"users": true}}"#, ".limits.users: expected a number, found true or false"),
            (#"{"limits": 5}"#, ".limits: expected an object, found a number"),
            (#"{"limits": {}}"#, #".limits: missing "users""#),
        ])
    func typeMismatch(_ json: String, _ message: String) throws {
        do {
            _ = try JSONDecoder().decode(Nested.self, from: Data(json.utf8))
            Issue.record("decoded \(json)")
        } catch {
            #expect(ReadableError.description(of: error) == message)
        }
    }

    @Test("errors that describe themselves pass through")
    func ownErrors() {
        struct Own: Error, CustomStringConvertible { var description: String { "own words" } }
        #expect(!ReadableError.needsRewriting(Own()))
        #expect(ReadableError.description(of: Own()) == "own words")
    }
}
