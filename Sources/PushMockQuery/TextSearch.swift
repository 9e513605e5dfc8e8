import Foundation
import PushMockJSON
public import PushMockRecording

/// The free-text condition of a query (`text=lab results`): what a search box means. It holds
/// when the text occurs, ignoring case, in any string value of the request body (so titles,
/// subtitles and bodies on every platform, and the app's data), in the token (or any Expo
/// recipient), topic, project, collapse or message id, the response's reason, or the request
/// path. Keys of the payload are not searched: "title" should not find every alert.
public struct TextSearch: Sendable, Hashable, CustomStringConvertible {
    /// The text as given (surrounding white space removed).
    public let text: String

    /// `nil` for empty or blank text, which is no condition at all.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        self.text = trimmed
    }

    public var description: String { text }

    /// Whether the text occurs in `record`.
    public func matches(_ record: ExchangeRecord) -> Bool {
        firstMatch(in: record) != nil
    }

    /// The first field value the text occurs in (for near-miss reports), or `nil`.
    public func firstMatch(in record: ExchangeRecord) -> String? {
        if let notification = record.notification {
            let fields = [notification.token, notification.topic, notification.project, notification.collapseID, notification.messageID]
            for case let value? in fields where contains(value) { return value }
            if let recipient = notification.resolvedTokens.first(where: contains) { return recipient }
        }
        if let reason = record.response.reason, contains(reason) { return reason }
        if contains(record.request.path) { return record.request.path }
        if let body = record.request.body.jsonValue { return firstString(in: body, depth: 0) }
        if let text = record.request.body.textValue, contains(text) { return text }
        return nil
    }

    private func contains(_ value: String) -> Bool {
        value.range(of: text, options: [.caseInsensitive, .diacriticInsensitive]) != nil
    }

    private func firstString(in value: JSONValue, depth: Int) -> String? {
        // Bodies are bounded by the services' size limits; the depth guard only stops a
        // pathological nesting from recursing deeply.
        guard depth < 64 else { return nil }
        switch value {
        case .string(let string): return contains(string) ? string : nil
        case .array(let elements):
            for element in elements {
                if let found = firstString(in: element, depth: depth + 1) { return found }
            }
            return nil
        case .object(let object):
            for member in object.members {
                if let found = firstString(in: member.value, depth: depth + 1) { return found }
            }
            return nil
        case .null, .bool, .number: return nil
        }
    }
}
