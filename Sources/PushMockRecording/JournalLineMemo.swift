import PushMockCore
import PushMockJSON

/// The journal-line members one connection's exchanges usually repeat, each kept as the bytes
/// it encoded to last time: `"connection"`, the request's `"headers"` and `"auth"`.
///
/// A client sends the same headers with every request on a connection, and the gateway records
/// them as one shared list (``HTTPHeaderList`` with the credentials replaced); its connection
/// and provider token do not change either. Encoding those members again for every line was
/// about a third of the line's encoding: some twenty strings scanned for characters to escape.
/// With the memo a repeated member is one comparison and one copy, and the line's bytes are
/// the same as without it (tests compare them).
///
/// Owned by one connection and used from its event loop only; lines of other connections go
/// through their own memo, or through ``disabled``.
package struct JournalLineMemo: Sendable {
    /// Whether members are remembered and reused at all.
    let isEnabled: Bool
    /// Each member's source value (kept, so that a shared buffer compared by identity cannot be
    /// freed and its address reused for different bytes) and its bytes, `"name":value` without
    /// a leading comma.
    var connection: RememberedMember<ConnectionInfo>?
    var requestHeaders: RememberedMember<HTTPHeaderList>?
    var auth: RememberedMember<AuthInfo>?
    /// How many members were written from the memo (for tests).
    package internal(set) var reuses = 0

    /// A memo that remembers members.
    package init() {
        isEnabled = true
    }

    private init(enabled: Bool) {
        isEnabled = enabled
    }

    /// A memo that remembers nothing: every member is encoded afresh.
    package static var disabled: JournalLineMemo { JournalLineMemo(enabled: false) }

    /// Members longer than this are not kept (an unusual request must not pin a large buffer
    /// for the rest of the connection).
    static let maximumMemberBytes = 4096
}

/// One remembered member and the value it was encoded from. A class, so that looking at the
/// memo's slot retains one object rather than every reference the value holds.
final class RememberedMember<Value: Sendable>: Sendable {
    let value: Value
    let member: [UInt8]

    init(value: Value, member: [UInt8]) {
        self.value = value
        self.member = member
    }
}

extension JSONWriter {
    /// Writes the member remembered in `slot` when `isCurrent` accepts the value it came from;
    /// otherwise encodes it with `encode` and remembers its bytes with `value`.
    @inline(__always)
    mutating func member<Value: Sendable>(
        _ slot: inout RememberedMember<Value>?,
        value: Value,
        reuses: inout Int,
        enabled: Bool,
        isCurrent: (Value) -> Bool,
        _ encode: (inout JSONWriter) -> Void
    ) {
        guard enabled else {
            encode(&self)
            return
        }
        if let remembered = slot, isCurrent(remembered.value) {
            rawMember(remembered.member)
            reuses &+= 1
            return
        }
        let bytes = capturingMember(encode)
        slot = bytes.count <= JournalLineMemo.maximumMemberBytes ? RememberedMember(value: value, member: bytes) : nil
    }
}
