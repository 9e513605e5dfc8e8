import Foundation

extension DecodingError {
    /// Where in the document and what: `.users[2].timeZone: …`, `[0]: missing "token"`. Swift's
    /// own description dumps coding-key structs, which no user of a JSON API can act on.
    package var readableDescription: String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context)): missing \"\(key.stringValue)\""
        @unknown default:
            return "\(self)"
        }
    }
}
