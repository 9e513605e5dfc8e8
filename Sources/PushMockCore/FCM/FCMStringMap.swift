/// A `map<string, string>` of an FCM message (`data`, `android.data`, `webpush.headers`, …) in
/// the order the client sent it.
///
/// A key sent twice keeps the position of its first occurrence and the value of its last
/// ("the last occurrence takes precedence"); keys are never re-cased. The request as sent,
/// duplicates included, stays available in ``FCMSendRequest/rawMessage``.
public struct FCMStringMap: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One key/value pair.
    public struct Entry: Sendable, Hashable, CustomStringConvertible {
        public var key: String
        public var value: String

        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }

        public var description: String { "\(key)=\(value)" }
    }

    /// The entries, unique by key, in first-occurrence order.
    public private(set) var entries: [Entry]

    /// An empty map.
    public init() {
        entries = []
    }

    /// A map from pairs in wire order, applying "last occurrence wins".
    public init(_ pairs: [(key: String, value: String)]) {
        entries = []
        var positions: [String: Int] = [:]
        for (key, value) in pairs {
            if let position = positions[key] {
                entries[position].value = value
            } else {
                positions[key] = entries.count
                entries.append(Entry(key: key, value: value))
            }
        }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.map { (key: $0.0, value: $0.1) })
    }

    public var startIndex: Int { entries.startIndex }
    public var endIndex: Int { entries.endIndex }
    public subscript(position: Int) -> Entry { entries[position] }

    /// The value for `key` (exact, case-sensitive).
    public subscript(key: String) -> String? {
        entries.first { $0.key == key }?.value
    }

    /// The keys in order.
    public var keys: [String] { entries.map(\.key) }

    /// The entries as tuples.
    public var pairs: [(key: String, value: String)] { entries.map { ($0.key, $0.value) } }

    /// This map with `overrides` applied: overridden keys keep their position and take the new
    /// value, new keys are appended (how `android.data` overrides `message.data`).
    public func merging(_ overrides: FCMStringMap) -> FCMStringMap {
        FCMStringMap(pairs + overrides.pairs)
    }

    /// The UTF-8 bytes of all keys and values.
    public var byteCount: Int {
        entries.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }
}
