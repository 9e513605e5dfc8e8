@_spi(Locking) package import PushMockCore

/// The receipts of issued Expo tickets, by receipt id. A receipt becomes available after the
/// configured delay (the relay to APNs/FCM happens then) and is forgotten after its lifetime
/// (Expo: 24 hours), both on the gateway clock.
///
/// The outcome is decided when the receipt is first read after it became available, from the
/// token's state at the relay time: a token unregistered between the ticket and the relay
/// gets `DeviceNotRegistered`, as Expo reports an uninstall it learns from APNs/FCM.
package final class ExpoReceiptStore: Sendable {
    /// One issued ticket's future receipt.
    package struct Entry: Sendable {
        package var token: ExpoTokenID
        package var project: ExpoProjectName?
        package var issuedAt: Timestamp
        /// When the relay happens and the receipt can be fetched.
        package var availableAt: Timestamp
        package var expiresAt: Timestamp
        /// An error decided at send time (over-size message reported in the receipt, a fault).
        package var presetError: ExpoDeliveryError? {
            get { presetErrorBox?.error }
            set { presetErrorBox = newValue.map(PresetError.init) }
        }
        /// Boxed, as the receipt is: both are rare or set late, and inline each took about 70
        /// bytes in every one of the store's up to 100,000 entries and (at most three-quarters
        /// full) 262,144 dictionary buckets. heaptrack had a full store's dictionary at ≈ 56 MB;
        /// the soak's RSS fell by about 25 MiB with the entries at 72 bytes.
        private var presetErrorBox: PresetError?
        /// The outcome, once decided (an indirect enum: one word).
        var receipt: ExpoReceipt?

        private final class PresetError: Sendable {
            let error: ExpoDeliveryError
            init(_ error: ExpoDeliveryError) { self.error = error }
        }

        package init(
            token: ExpoTokenID, project: ExpoProjectName? = nil, issuedAt: Timestamp, availableAt: Timestamp, expiresAt: Timestamp,
            presetError: ExpoDeliveryError? = nil
        ) {
            self.token = token
            self.project = project
            self.issuedAt = issuedAt
            self.availableAt = availableAt
            self.expiresAt = expiresAt
            self.presetErrorBox = presetError.map(PresetError.init)
        }
    }

    private struct Contents {
        var entries: [String: Entry] = [:]
        /// The ids in the order they were issued, as a ring of at most `capacity` (the oldest
        /// at `head` once it is full), for dropping the oldest. Ids whose receipts expired stay
        /// until their turn comes. A ring, because the array this replaced kept the dropped
        /// ids until it was twice the store's size and then rebuilt itself: a sawtooth of up
        /// to a hundred thousand strings that the soak saw as growth (`Benchmarks/README.md`,
        /// twenty-fourth session).
        var order: [String] = []
        var head = 0
        var nextSweep: Timestamp?
    }

    private let contents = SanitizerVisibleMutex(Contents())
    /// The most receipts kept; beyond it the oldest are dropped (as if expired), so a long
    /// benchmark cannot grow memory without bound.
    package let capacity: Int

    package init(capacity: Int = 1_000_000) {
        self.capacity = max(1, capacity)
    }

    package func issue(_ issued: [(id: ExpoReceiptID, entry: Entry)], now: Timestamp) {
        guard !issued.isEmpty else { return }
        contents.withLock { contents in
            for (id, entry) in issued where contents.entries.updateValue(entry, forKey: id.rawValue) == nil {
                if contents.order.count < capacity {
                    contents.order.append(id.rawValue)
                } else {
                    contents.entries[contents.order[contents.head]] = nil
                    contents.order[contents.head] = id.rawValue
                    contents.head = contents.head + 1 == capacity ? 0 : contents.head + 1
                }
            }
            if let sweep = contents.nextSweep, sweep > now { return }
            contents.entries = contents.entries.filter { $0.value.expiresAt > now }
            contents.nextSweep = now + .seconds(3600)
        }
    }

    /// The receipts of `ids` that are available and not expired at `now`, in request order
    /// (each id once); `decide` gives the outcome of a receipt read for the first time.
    package func receipts(for ids: [ExpoReceiptID], now: Timestamp, decide: (Entry) -> ExpoReceipt) -> [(
        id: ExpoReceiptID, receipt: ExpoReceipt
    )] {
        contents.withLock { contents in
            var result: [(id: ExpoReceiptID, receipt: ExpoReceipt)] = []
            var seen = Set<String>()
            for id in ids where seen.insert(id.rawValue).inserted {
                guard var entry = contents.entries[id.rawValue] else { continue }
                if entry.expiresAt <= now {
                    contents.entries[id.rawValue] = nil
                    continue
                }
                guard entry.availableAt <= now else { continue }
                let receipt = entry.receipt ?? decide(entry)
                entry.receipt = receipt
                contents.entries[id.rawValue] = entry
                result.append((id, receipt))
            }
            return result
        }
    }

    /// The entry of `id`, whatever its state (control API, tests).
    package func entry(_ id: String) -> Entry? {
        contents.withLock { $0.entries[id] }
    }

    package var count: Int { contents.withLock { $0.entries.count } }

    /// How many ids the issue order holds (at most ``capacity``), for tests.
    package var trackedIDCount: Int { contents.withLock { $0.order.count } }

    package func removeAll() {
        contents.withLock { $0 = Contents() }
    }
}

/// Expo's per-project notification rate: a fixed one-second window on the gateway clock.
package final class ExpoRateLimiter: Sendable {
    private struct Window {
        var second: Int64
        var count: Int
    }

    private let windows = SanitizerVisibleMutex<[String: Window]>([:])

    package init() {}

    /// Counts `notifications` for `project` if they fit under `limit` this second; `false` (and
    /// nothing counted) otherwise.
    func admit(_ notifications: Int, project: String, limit: Int, now: Timestamp) -> Bool {
        let second = now.secondsSince1970
        return windows.withLock { windows in
            // Windows of projects that stopped sending are dropped once there are many (projects
            // come and go through the control API).
            if windows.count > 1024, windows[project] == nil {
                windows = windows.filter { $0.value.second == second }
            }
            var window = windows[project] ?? Window(second: second, count: 0)
            if window.second != second { window = Window(second: second, count: 0) }
            guard window.count + notifications <= limit else { return false }
            window.count += notifications
            windows[project] = window
            return true
        }
    }
}
