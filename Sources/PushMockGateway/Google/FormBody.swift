import Foundation

/// `application/x-www-form-urlencoded` parsing (the OAuth2 token request).
enum FormBody {
    /// Name/value pairs in order; `+` is a space and `%XX` escapes are decoded.
    static func parse(_ body: [UInt8]) -> [(name: String, value: String)] {
        let text = String(decoding: body, as: UTF8.self)
        return text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
