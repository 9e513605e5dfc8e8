@_spi(Locking) package import PushMockCore

/// How the gateway ages the provider tokens senders sign themselves, so that moving the gateway
/// clock does not lock every sender out. (OAuth assertions only use ``realNow()``: see
/// `OAuthTokenEndpoint.authenticate`.)
///
/// A sender signs `iat` with its own clock — real time — while the gateway judges it on its
/// (possibly virtual) clock. The rule (docs/delivery-simulation.md, "Credentials and the
/// clock"): the first time the gateway sees a credential it judges it on the gateway clock; if
/// the gateway clock would reject it (too old, or issued in the future) but the host's real
/// clock would not, the credential was signed across a clock move, and the gateway remembers the
/// difference between the two clocks for it. From then on the credential ages on the gateway
/// clock: a token signed now is fresh after `clock advance 6h`, and advancing the clock 61
/// minutes still expires a token already in use.
package final class CredentialClock: Sendable {
    private struct Book {
        /// Credential → how far the gateway clock was ahead of the clock it was signed with.
        var offsets: [String: Int64] = [:]
        /// First-seen order, to forget the oldest when full.
        var order: [String] = []
        var start = 0
    }

    /// How far in the future a credential's `iat` may lie and still count as signed on a clock:
    /// the skew Google allows assertions (5 minutes).
    package static let futureTolerance: Duration = .seconds(300)

    private let book = SanitizerVisibleMutex(Book())
    private let capacity: Int
    private let realTime: @Sendable () -> Timestamp

    /// - Parameters:
    ///   - capacity: credentials remembered (the oldest are forgotten first). Default: 10 000.
    ///   - realTime: the host's real clock (tests inject one).
    package init(capacity: Int = 10_000, realTime: @escaping @Sendable () -> Timestamp = { SystemClock().now() }) {
        self.capacity = max(1, capacity)
        self.realTime = realTime
    }

    /// The time `credential` should be judged at, given the gateway's `now`: `now` itself for a
    /// credential signed on the gateway clock, or `now` shifted back by the clock move it was
    /// signed across. `isValid(t)` says whether the credential is acceptable at time `t`; it is
    /// asked only the first time a credential is seen.
    package func judgingTime(for credential: String, now: Timestamp, isValid: (Timestamp) -> Bool) -> Timestamp {
        if let offset = book.withLock({ $0.offsets[credential] }) {
            return Timestamp(millisecondsSince1970: now.millisecondsSince1970 - offset)
        }
        var offset: Int64 = 0
        if !isValid(now) {
            let real = realTime()
            if isValid(real) {
                offset = now.millisecondsSince1970 - real.millisecondsSince1970
            }
        }
        let stored = book.withLock { book -> Int64 in
            if let existing = book.offsets[credential] { return existing }
            book.offsets[credential] = offset
            book.order.append(credential)
            if book.offsets.count > capacity {
                book.offsets[book.order[book.start]] = nil
                book.start += 1
                if book.start > capacity {
                    book.order.removeFirst(book.start)
                    book.start = 0
                }
            }
            return offset
        }
        return Timestamp(millisecondsSince1970: now.millisecondsSince1970 - stored)
    }

    /// The host's real time (what a sender that knows nothing of the gateway clock signs with).
    package func realNow() -> Timestamp { realTime() }

    /// Number of credentials remembered.
    package var count: Int { book.withLock { $0.offsets.count } }

    /// Forgets every credential.
    package func removeAll() {
        book.withLock { $0 = Book() }
    }
}
