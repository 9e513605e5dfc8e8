/// Tokens in one-line summaries: enough to recognise one, not the whole thing.
enum TokenText {
    /// The first `keep` characters and "…" when the token is longer than `limit`. Expo tokens
    /// all start with the same 18 characters (`ExponentPushToken[`), so theirs keeps the start
    /// and end of the part in brackets instead: `Expo[AbCd…StUv]`, as the web inbox shows them.
    static func short(_ token: String, keep: Int, limit: Int) -> String {
        for prefix in ["ExponentPushToken[", "ExpoPushToken["] where token.hasPrefix(prefix) && token.hasSuffix("]") {
            let inner = token.dropFirst(prefix.count).dropLast()
            return inner.count > 10 ? "Expo[\(inner.prefix(4))…\(inner.suffix(4))]" : "Expo[\(inner)]"
        }
        return token.count > limit ? token.prefix(keep) + "…" : token
    }
}
