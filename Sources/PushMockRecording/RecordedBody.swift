public import PushMockJSON

/// A request or response body as stored in a record and in the journal.
///
/// Bodies are classified once, when recorded, so the journal can embed JSON verbatim (readable,
/// greppable, no double encoding), keep text readable, and still store arbitrary bytes safely.
public enum RecordedBody: Sendable, Hashable {
    /// No body (or an empty one).
    case none
    /// Bytes that are *known* to be one valid JSON value in compact form (no insignificant
    /// whitespace). They are written into the journal verbatim, so invalid bytes here would
    /// corrupt the journal line; use ``init(capturing:)-(Array<UInt8>)`` to classify untrusted
    /// bytes safely.
    case json([UInt8])
    /// A body that is valid UTF-8 but not JSON; journaled as an escaped string.
    case text(String)
    /// Anything else; journaled as Base64.
    case binary([UInt8])

    /// Classifies raw body bytes: empty → ``none``; valid JSON → ``json(_:)`` (compacted only if
    /// it contained whitespace, otherwise the same array, not copied); valid UTF-8 → ``text(_:)``;
    /// otherwise ``binary(_:)``. Costs one validating scan for JSON bodies — cheap enough for the
    /// hot path.
    public init(capturing bytes: [UInt8], maxDepth: Int = JSONScanner.defaultMaxDepth) {
        guard !bytes.isEmpty else {
            self = .none
            return
        }
        let scan = JSONScanner.scan(bytes, maxDepth: maxDepth)
        if scan.isValid {
            self = .json(scan.hasInsignificantWhitespace ? JSONCompactor.compacted(bytes) : bytes)
        } else if let text = String(validating: bytes, as: UTF8.self) {
            self = .text(text)
        } else {
            self = .binary(bytes)
        }
    }

    /// Classifies any byte collection (see ``init(capturing:maxDepth:)-(Array<UInt8>,_)``).
    public init(capturing bytes: some Collection<UInt8>, maxDepth: Int = JSONScanner.defaultMaxDepth) {
        self.init(capturing: Array(bytes), maxDepth: maxDepth)
    }

    /// `true` for ``none``.
    public var isNone: Bool {
        if case .none = self { return true }
        return false
    }

    /// The stored bytes: compact JSON, the text's UTF-8, or the binary data.
    public var bytes: [UInt8] {
        switch self {
        case .none: []
        case .json(let bytes), .binary(let bytes): bytes
        case .text(let text): Array(text.utf8)
        }
    }

    /// Number of stored bytes (for `.json`, of the compact form).
    public var byteCount: Int {
        switch self {
        case .none: 0
        case .json(let bytes), .binary(let bytes): bytes.count
        case .text(let text): text.utf8.count
        }
    }

    /// The parsed JSON for ``json(_:)`` bodies — for assertions and queries, not the hot path.
    public var jsonValue: JSONValue? {
        guard case .json(let bytes) = self else { return nil }
        return try? JSONValue(parsing: bytes)
    }

    /// The text for ``text(_:)`` bodies, and the UTF-8 text of ``json(_:)`` bodies.
    public var textValue: String? {
        switch self {
        case .text(let text): text
        case .json(let bytes): String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }
}
