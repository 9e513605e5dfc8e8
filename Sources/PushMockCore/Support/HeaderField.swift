/// One HTTP header as it appeared on the wire (HTTP/2 pseudo-headers such as `:path` included
/// when the caller records them).
///
/// Headers are kept as an ordered list of pairs rather than a dictionary because order and
/// duplicates matter when diagnosing clients (APNs rejects some duplicates; HPACK preserves
/// order), and the journal must show exactly what was exchanged.
public struct HeaderField: Sendable, Hashable, CustomStringConvertible {
    /// The header name as received (HTTP/2 names are lower-case).
    public var name: String
    /// The header value.
    public var value: String

    /// Creates a header field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Creates a header field: `HeaderField("apns-topic", "com.example")`.
    public init(_ name: String, _ value: String) {
        self.init(name: name, value: value)
    }

    public var description: String { "\(name): \(value)" }
}

extension HTTPHeaderList {
    /// The first value whose name equals `name`, ignoring ASCII case (HTTP names are
    /// case-insensitive).
    public func firstValue(named name: String) -> String? {
        first { [HeaderField].sameName($0.name, name) }?.value
    }

    /// Every value whose name equals `name` (ASCII case-insensitive), in order.
    public func values(named name: String) -> [String] {
        filter { [HeaderField].sameName($0.name, name) }.map(\.value)
    }
}

extension Array where Element == HeaderField {
    /// The first value whose name equals `name`, ignoring ASCII case (HTTP names are
    /// case-insensitive).
    public func firstValue(named name: String) -> String? {
        first { Self.sameName($0.name, name) }?.value
    }

    /// Every value whose name equals `name` (ASCII case-insensitive), in order.
    public func values(named name: String) -> [String] {
        filter { Self.sameName($0.name, name) }.map(\.value)
    }

    static func sameName(_ left: String, _ right: String) -> Bool {
        left.utf8.count == right.utf8.count
            && zip(left.utf8, right.utf8).allSatisfy { a, b in
                (a >= 0x41 && a <= 0x5A ? a | 0x20 : a) == (b >= 0x41 && b <= 0x5A ? b | 0x20 : b)
            }
    }
}
