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
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return placed(context, context.debugDescription)
        case .keyNotFound(let key, let context):
            return placed(context, "missing \"\(key.stringValue)\"")
        @unknown default:
            return "\(self)"
        }
    }
}
