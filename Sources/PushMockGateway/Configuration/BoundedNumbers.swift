import PushMockCore

extension KeyedDecodingContainer {
    /// A whole number of seconds within ``InputLimits/longestDurationSeconds``; larger values
    /// would overflow once added to a time, so the file is refused instead.
    func decodeSecondsIfPresent(forKey key: Key) throws -> Int? {
        guard let seconds = try decodeIfPresent(Int.self, forKey: key) else { return nil }
        guard InputLimits.isDurationSeconds(seconds) else {
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: self,
                debugDescription: "must be 0 to \(Int64(InputLimits.longestDurationSeconds)) seconds (\(InputLimits.durationRangeText))"
            )
        }
        return seconds
    }

    /// A whole number of milliseconds within ``InputLimits/longestDurationSeconds``.
    func decodeMillisecondsIfPresent(forKey key: Key) throws -> Int? {
        guard let milliseconds = try decodeIfPresent(Int.self, forKey: key) else { return nil }
        guard milliseconds >= 0, Double(milliseconds) <= InputLimits.longestDurationSeconds * 1000 else {
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: self,
                debugDescription: "must be 0 to \(Int64(InputLimits.longestDurationSeconds) * 1000) milliseconds"
            )
        }
        return milliseconds
    }
}

extension Int {
    /// Counts up without trapping: a count a tester set near `Int.max` (`"sends"`) stays there.
    mutating func addSaturating(_ amount: Int) {
        let (sum, overflow) = addingReportingOverflow(amount)
        self = overflow ? (amount > 0 ? .max : .min) : sum
    }

    /// The sum, or the bound it would pass: `expireAfterSends` on a token whose count is near
    /// `Int.max` ends it at `Int.max` instead of trapping.
    func addingSaturating(_ amount: Int) -> Int {
        var sum = self
        sum.addSaturating(amount)
        return sum
    }
}
