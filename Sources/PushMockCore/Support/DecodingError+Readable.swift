import Foundation

extension DecodingError {
    /// Where in the document and what: `.users[2].timeZone: …`, `[0]: missing "token"`. Swift's
    /// own description dumps coding-key structs, which no user of a JSON API can act on.
    package var readableDescription: String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        // At the top of the document there is no place to name.
        func placed(_ context: DecodingError.Context, _ message: String) -> String {
            let place = path(context)
            return place.isEmpty ? message : "\(place): \(message)"
        }
        switch self {
        case .typeMismatch(let type, let context):
            return placed(context, Self.mismatch(expected: type, context.debugDescription))
        case .valueNotFound(_, let context), .dataCorrupted(let context):
            return placed(context, context.debugDescription)
        case .keyNotFound(let key, let context):
            return placed(context, "missing \"\(key.stringValue)\"")
        @unknown default:
            return "\(self)"
        }
    }

    /// "expected an object, found an array" rather than Swift's "Expected to decode
    /// Dictionary<String, Any> but found an array instead.": JSON's words, not Swift's types.
    private static func mismatch(expected type: Any.Type, _ debugDescription: String) -> String {
        let name = String(describing: type)
        let expected: String
        switch name {
        case _ where name.hasPrefix("Dictionary"): expected = "an object"
        case _ where name.hasPrefix("Array"): expected = "an array"
        case "String", "Character": expected = "a string"
        case "Bool": expected = "true or false"
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Double", "Float", "Decimal":
            expected = "a number"
        default: return debugDescription
        }
        // Foundation's JSONDecoder says "… but found a dictionary instead."
        guard let found = debugDescription.range(of: "but found "),
            let end = debugDescription.range(of: " instead", range: found.upperBound..<debugDescription.endIndex)
        else { return "expected \(expected)" }
        // Foundation's words for what it found differ by value kind and version.
        let foundWords = String(debugDescription[found.upperBound..<end.lowerBound])
        let actual: String
        switch foundWords {
        case "a dictionary", "dictionary": actual = "an object"
        case "a boolean", "bool": actual = "true or false"
        case "number": actual = "a number"
        default: actual = foundWords
        }
        return "expected \(expected), found \(actual)"
    }
}
