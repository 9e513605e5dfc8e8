/// The members of a JSON object, in the order they were parsed or added.
///
/// Order is kept because payloads are recorded and replayed verbatim and golden files should
/// show what the client sent. Duplicate member names are kept too (RFC 8259 only says names
/// SHOULD be unique); lookups return the *last* occurrence, as JavaScript's `JSON.parse` does.
///
/// Equality ignores the order of *different* names: two objects are equal when, after a stable
/// sort by name (UTF-8 byte order), their member lists are equal. Names compare byte-for-byte,
/// not by Unicode canonical equivalence, because JSON names are sequences of code points.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One `name: value` pair.
    public typealias Member = (key: String, value: JSONValue)

    /// All members in order, duplicates included.
    public var members: [Member]

    /// An empty object.
    public init() {
        members = []
    }

    /// An object with the given members, in order.
    public init(_ members: [Member]) {
        self.members = members
    }

    /// Builds an object from a literal, preserving the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = elements.map { (key: $0.0, value: $0.1) }
    }

    // MARK: Collection

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> Member { members[position] }

    // MARK: Lookup and mutation

    /// The value of the last member named `key`. Setting replaces that member in place (or
    /// appends a new one); setting `nil` removes every member with that name.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let index = lastIndex(ofKey: key) else { return nil }
            return members[index].value
        }
        set {
            if let newValue {
                if let index = lastIndex(ofKey: key) {
                    members[index].value = newValue
                } else {
                    members.append((key: key, value: newValue))
                }
            } else {
                members.removeAll { Self.sameName($0.key, key) }
            }
        }
    }

    /// Member names in order (duplicates included).
    public var keys: [String] { members.map(\.key) }

    /// Appends a member even if the name already exists (what the parser does).
    public mutating func append(key: String, value: JSONValue) {
        members.append((key: key, value: value))
    }

    /// Index of the last member named `key`.
    public func lastIndex(ofKey key: String) -> Int? {
        members.lastIndex { Self.sameName($0.key, key) }
    }

    /// Members sorted by name in UTF-8 byte order; members with equal names keep their relative
    /// order. This is the order canonical serialization and equality use.
    public var sortedMembers: [Member] {
        members.indices.sorted { left, right in
            let leftKey = members[left].key.utf8
            let rightKey = members[right].key.utf8
            if leftKey.elementsEqual(rightKey) { return left < right }
            return leftKey.lexicographicallyPrecedes(rightKey)
        }.map { members[$0] }
    }

    /// Names compare by their UTF-8 bytes (not by Unicode canonical equivalence, as `==` on
    /// `String` would). The counts first: a lookup compares its name with every member's, and
    /// most differ in length (a decoded journal line makes dozens of lookups).
    static func sameName(_ left: String, _ right: String) -> Bool {
        let left = left.utf8
        let right = right.utf8
        guard left.count == right.count else { return false }
        let contiguous = left.withContiguousStorageIfAvailable { leftBytes in
            right.withContiguousStorageIfAvailable { rightBytes in leftBytes.elementsEqual(rightBytes) }
        }
        return (contiguous ?? nil) ?? left.elementsEqual(right)
    }

    // MARK: Equatable, Hashable

    /// Equal when the members are equal after a stable sort by name (see the type documentation).
    public static func == (left: JSONObject, right: JSONObject) -> Bool {
        guard left.members.count == right.members.count else { return false }
        let sameOrder = zip(left.members, right.members).allSatisfy { pair in
            sameName(pair.0.key, pair.1.key) && pair.0.value == pair.1.value
        }
        if sameOrder { return true }
        return zip(left.sortedMembers, right.sortedMembers).allSatisfy { pair in
            sameName(pair.0.key, pair.1.key) && pair.0.value == pair.1.value
        }
    }

    /// Hashes the members in sorted order, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in sortedMembers {
            JSONValue.hashUTF8(member.key, into: &hasher)
            hasher.combine(member.value)
        }
    }
}
