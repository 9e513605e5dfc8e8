import Foundation
public import PushMockCore

/// The `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
public enum RetryAfter {
    /// The wait a `Retry-After` value asks for, relative to `now` for HTTP-dates (a date in the
    /// past means no wait). `nil` when the value is neither form.
    public static func parse(_ value: String, now: Timestamp) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(trimmed), seconds >= 0 {
            return .seconds(seconds)
        }
        // A server's date far enough out would trap in the conversion (Foundation's formatter
        // stops at five-digit years today); beyond what Int64 milliseconds hold is no wait we
        // would honour anyway.
        if let date = httpDate(trimmed), let at = Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded()) {
            let (milliseconds, overflow) = at.subtractingReportingOverflow(now.millisecondsSince1970)
            return overflow ? nil : .milliseconds(max(0, milliseconds))
        }
        return nil
    }

    private static func httpDate(_ text: String) -> Date? {
        // IMF-fixdate, the only form senders must generate (obsolete forms are rare).
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
