/// FCM registration tokens: what `message.token` must look like.
///
/// Real tokens are `<instance id>:APA91b<…>` — an 11- to 22-character instance ID, a colon and
/// an `APA91b`-prefixed blob — about 152–163 characters of `[A-Za-z0-9_:-]`. FCM does not
/// document the format, so by default the mock only rejects what can never be a token (wrong
/// characters, too short, absurdly long), which lets tests use readable fake tokens; the
/// ``Rule/realistic`` rule insists on the real shape.
///
/// A value names one token as issued (registries key by it); the static members say whether a
/// string can be one.
public struct FCMRegistrationToken: StringIdentifier {
    public let rawValue: String

    public init(_ text: String) { self.rawValue = text }

    /// How strictly identifiers (`token`, `fid`) are checked.
    public struct Rule: Sendable, Hashable, CustomStringConvertible {
        private enum Known: String, CaseIterable, Sendable {
            case lenient
            case realistic
        }

        private let known: Known

        private init(_ known: Known) { self.known = known }

        /// Parses `lenient` or `realistic` (configuration spelling).
        public init?(rawValue: String) {
            guard let known = Known(rawValue: rawValue) else { return nil }
            self.known = known
        }

        public var rawValue: String { known.rawValue }
        public var description: String { known.rawValue }

        /// Tokens: 10…4096 characters of `[A-Za-z0-9_:.-]`. Installation IDs: the same.
        public static let lenient = Self(.lenient)
        /// Tokens: `^[A-Za-z0-9_-]{1,64}:APA91b[A-Za-z0-9_-]{100,}$`, at most 4096 characters.
        /// Installation IDs: `^[cdef][A-Za-z0-9_-]{21}$` (22 characters, as Firebase issues them).
        public static let realistic = Self(.realistic)

        /// Both rules.
        public static let all: [Rule] = Known.allCases.map(Rule.init)
    }

    /// Longest accepted token.
    public static let maximumLength = 4096
    /// Shortest token the lenient rule accepts.
    public static let minimumLenientLength = 10

    /// Whether `token` passes the lenient rule.
    public static func isWellFormed(_ token: String) -> Bool {
        isWellFormed(token, rule: .lenient)
    }

    /// Whether `token` passes `rule`.
    public static func isWellFormed(_ token: String, rule: Rule) -> Bool {
        let bytes = Array(token.utf8)
        guard bytes.count <= maximumLength else { return false }
        if rule == .lenient {
            return bytes.count >= minimumLenientLength && bytes.allSatisfy(isLenientByte)
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let instanceID = bytes[..<colon]
        let rest = bytes[(colon + 1)...]
        guard (1...64).contains(instanceID.count), instanceID.allSatisfy(isBase64URLByte),
            rest.starts(with: "APA91b".utf8), rest.count >= 106, rest.allSatisfy(isBase64URLByte)
        else { return false }
        return true
    }

    static func isLenientByte(_ byte: UInt8) -> Bool {
        isBase64URLByte(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
    }

    static func isBase64URLByte(_ byte: UInt8) -> Bool {
        FCMASCII.isLetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
