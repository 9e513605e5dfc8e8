#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An ordered list of HTTP header fields kept as raw bytes in one arena.
///
/// It is also a random-access collection of ``HeaderField`` values (strings made on access)
/// and can be written as an array literal: `[HeaderField("apns-topic", "com.example")]`.
///
/// The gateway sees every header of every request and records them all. Converting each name
/// and value to a `String` on arrival measured ≈ 20 % of throughput on this machine, so fields
/// are copied once into a single byte array and only turned into strings where someone reads
/// them. Duplicates and order are preserved (APNs answers repeated headers with
/// `DuplicateHeaders`, and the recording shows exactly what was sent).
///
/// Names are stored as given; the HTTP/2 transport guarantees lower case, the HTTP/1.1
/// transport lower-cases them before appending.
public struct HTTPHeaderList: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral {
    /// One field's byte ranges, relative to the start of the names and values.
    @usableFromInline
    struct Span: Sendable, Hashable {
        @usableFromInline var nameStart: UInt32
        @usableFromInline var nameLength: UInt32
        @usableFromInline var valueLength: UInt32

        @inlinable
        init(nameStart: UInt32, nameLength: UInt32, valueLength: UInt32) {
            self.nameStart = nameStart
            self.nameLength = nameLength
            self.valueLength = valueLength
        }

        @inlinable var valueStart: Int { Int(nameStart) + Int(nameLength) }
        @inlinable var end: Int { valueStart + Int(valueLength) }

        /// Bytes one span takes in the table.
        @inlinable static var size: Int { 12 }
    }

    /// One allocation for everything: a table of `spanCapacity` spans (``Span/size`` bytes
    /// each, the first `fieldCount` in use), then every name and value.
    ///
    /// Two arrays (bytes and spans) were two allocations per list, and every request and every
    /// response makes one: four of the gateway's ten allocations per APNs request.
    @usableFromInline var storage: [UInt8]
    @usableFromInline var fieldCount: UInt32
    @usableFromInline var spanCapacity: UInt32

    /// Where names and values start in ``storage``.
    @inlinable var bytesStart: Int { Int(spanCapacity) &* Span.size }

    /// An empty list (it allocates on the first append).
    public init() {
        self.storage = []
        self.fieldCount = 0
        self.spanCapacity = 0
    }

    /// An empty list with room for `fields` fields of `bytes` bytes in total, in one
    /// allocation sized exactly.
    @inlinable
    public init(fields: Int, bytes: Int) {
        self.storage = []
        self.fieldCount = 0
        self.spanCapacity = 0
        reserveCapacity(fields: fields, bytes: bytes)
    }

    /// Reserves space so that appending a request's headers does not reallocate.
    @inlinable
    public mutating func reserveCapacity(fields: Int, bytes: Int) {
        if fields > Int(spanCapacity) {
            growSpanTable(to: fields, reservingBytes: bytes)
        } else {
            storage.reserveCapacity(bytesStart + bytes)
        }
    }

    /// Rebuilds the storage with a table of `capacity` spans and room for `bytes` bytes of
    /// names and values (at least those already there).
    @usableFromInline
    mutating func growSpanTable(to capacity: Int, reservingBytes bytes: Int) {
        let usedBytes = storage.count - bytesStart
        let tableBytes = capacity * Span.size
        var grown: [UInt8] = []
        grown.reserveCapacity(tableBytes + Swift.max(bytes, usedBytes))
        storage.withUnsafeBytes { old in
            let usedTable = Int(fieldCount) * Span.size
            if usedTable > 0 { grown.append(contentsOf: UnsafeRawBufferPointer(rebasing: old[0..<usedTable])) }
            grown.append(contentsOf: repeatElement(0, count: tableBytes - usedTable))
            if usedBytes > 0 { grown.append(contentsOf: UnsafeRawBufferPointer(rebasing: old[bytesStart...])) }
        }
        storage = grown
        spanCapacity = UInt32(truncatingIfNeeded: capacity)
    }

    /// The span of field `index` (bounds-checked like an array).
    @inlinable
    func span(at index: Int) -> Span {
        precondition(index >= 0 && index < Int(fieldCount), "header field index out of range")
        return storage.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index &* Span.size, as: Span.self) }
    }

    public typealias Element = HeaderField
    public typealias Index = Int

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { Int(fieldCount) }

    /// The field at `index`, as strings.
    public subscript(position: Int) -> HeaderField {
        HeaderField(name: name(at: position), value: value(at: position))
    }

    public init(arrayLiteral elements: HeaderField...) {
        self.init()
        for field in elements {
            append(name: field.name, value: field.value)
        }
    }

    /// Whether `other` holds the same fields in the same order, byte for byte (two `memcmp`s;
    /// `==` compares the bytes one by one).
    package func hasSameFields(as other: HTTPHeaderList) -> Bool {
        guard fieldCount == other.fieldCount, byteCount == other.byteCount else { return false }
        return storage.withUnsafeBytes { mine in
            other.storage.withUnsafeBytes { theirs in
                let table = Int(fieldCount) * Span.size
                return UnsafeRawBufferPointer(rebasing: mine[0..<table]).hasSameBytes(
                    as: UnsafeRawBufferPointer(rebasing: theirs[0..<table]))
                    && UnsafeRawBufferPointer(rebasing: mine[bytesStart...]).hasSameBytes(
                        as: UnsafeRawBufferPointer(rebasing: theirs[other.bytesStart...]))
            }
        }
    }

    /// Whether both lists hold the same fields: at once when they share one buffer (copies of
    /// one list), else by comparing the bytes (``hasSameFields(as:)``).
    package func isSameList(as other: HTTPHeaderList) -> Bool {
        guard fieldCount == other.fieldCount, storage.count == other.storage.count, spanCapacity == other.spanCapacity else {
            return hasSameFields(as: other)
        }
        let shared = storage.withUnsafeBufferPointer { mine in
            other.storage.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress }
        }
        return shared || hasSameFields(as: other)
    }

    /// A copy in which each field for which `replacement` returns a value carries that value
    /// instead, made in one pass over the fields (`replacement` is asked once per field); the
    /// list itself (shared, not copied) when `replacement` returns `nil` for every field.
    public func replacingValues(_ replacement: (_ index: Int) -> String?) -> HTTPHeaderList {
        var index = 0
        var first: String?
        while index < count {
            first = replacement(index)
            if first != nil { break }
            index += 1
        }
        guard var value = first else { return self }
        // Room for one replacement of this length: more grow the storage once or twice.
        var copy = HTTPHeaderList(fields: count, bytes: byteCount + value.utf8.count)
        withUnsafeStorage { storage in
            let bytes = UnsafeRawBufferPointer(storage)
            func field(_ position: Int) -> (name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
                (
                    UnsafeRawBufferPointer(rebasing: bytes[nameRange(at: position)]),
                    UnsafeRawBufferPointer(rebasing: bytes[valueRange(at: position)])
                )
            }
            for position in 0..<index {
                let (name, original) = field(position)
                copy.append(name: name, value: original)
            }
            value.withUTF8 { copy.append(name: field(index).name, value: UnsafeRawBufferPointer($0)) }
            for position in (index + 1)..<count {
                let (name, original) = field(position)
                if var replaced = replacement(position) {
                    replaced.withUTF8 { copy.append(name: name, value: UnsafeRawBufferPointer($0)) }
                } else {
                    copy.append(name: name, value: original)
                }
            }
        }
        return copy
    }

    /// Creates a list from string pairs (cold paths and tests).
    public init(_ fields: [(String, String)]) {
        self.init()
        for (name, value) in fields {
            append(name: name, value: value)
        }
    }

    /// The number of fields.
    @inlinable public var count: Int { Int(fieldCount) }

    /// Whether there are no fields.
    @inlinable public var isEmpty: Bool { fieldCount == 0 }

    /// Total bytes of names and values.
    @inlinable public var byteCount: Int { storage.count - bytesStart }

    /// Records the span of a field whose name and value were just appended from `start`.
    @inlinable @inline(__always)
    mutating func appendSpan(nameStart start: Int, nameLength: Int) {
        let span = Span(
            nameStart: UInt32(truncatingIfNeeded: start),
            nameLength: UInt32(truncatingIfNeeded: nameLength),
            valueLength: UInt32(truncatingIfNeeded: byteCount - start - nameLength)
        )
        let offset = Int(fieldCount) &* Span.size
        storage.withUnsafeMutableBytes { $0.storeBytes(of: span, toByteOffset: offset, as: Span.self) }
        fieldCount &+= 1
    }

    /// Makes room in the span table for one more field.
    @inlinable @inline(__always)
    mutating func reserveSpan() {
        if fieldCount == spanCapacity {
            growSpanTable(to: Swift.max(8, Int(spanCapacity) * 2), reservingBytes: Swift.max(256, byteCount * 2))
        }
    }

    /// Appends a field from raw bytes (the hot path: one `memcpy` per name and value).
    @inlinable
    public mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        reserveSpan()
        let start = byteCount
        storage.append(contentsOf: name)
        storage.append(contentsOf: value)
        appendSpan(nameStart: start, nameLength: name.count)
    }

    /// Appends a field from any byte collections.
    @inlinable
    public mutating func append(name: some Collection<UInt8>, value: some Collection<UInt8>) {
        reserveSpan()
        let start = byteCount
        storage.append(contentsOf: name)
        let nameLength = byteCount - start
        storage.append(contentsOf: value)
        appendSpan(nameStart: start, nameLength: nameLength)
    }

    /// Appends a field from strings.
    public mutating func append(name: String, value: String) {
        append(name: name.utf8, value: value.utf8)
    }

    /// Appends a field with a known name (`.apnsTopic`, `.contentType`, …).
    @inlinable
    public mutating func append(_ name: HTTPFieldName, value: String) {
        append(name: UnsafeBufferPointer(start: name.utf8Start, count: name.count), value: value.utf8)
    }

    /// Removes every field.
    public mutating func removeAll(keepingCapacity: Bool = true) {
        if keepingCapacity {
            storage.removeSubrange(bytesStart...)
        } else {
            storage = []
            spanCapacity = 0
        }
        fieldCount = 0
    }

    /// The name of field `index` as a string.
    public func name(at index: Int) -> String {
        String(decoding: nameBytes(at: index), as: UTF8.self)
    }

    /// The value of field `index` as a string (invalid UTF-8 is repaired with U+FFFD).
    public func value(at index: Int) -> String {
        String(decoding: valueBytes(at: index), as: UTF8.self)
    }

    /// The raw bytes of the name of field `index`.
    @inlinable
    public func nameBytes(at index: Int) -> ArraySlice<UInt8> {
        let span = span(at: index)
        let base = bytesStart
        return storage[(base &+ Int(span.nameStart))..<(base &+ span.valueStart)]
    }

    /// The raw bytes of the value of field `index`.
    @inlinable
    public func valueBytes(at index: Int) -> ArraySlice<UInt8> {
        let span = span(at: index)
        let base = bytesStart
        return storage[(base &+ span.valueStart)..<(base &+ span.end)]
    }

    /// Calls `body` with the name and value bytes of every field, without copying.
    @inlinable
    public func forEachField(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) rethrows {
        let fields = Int(fieldCount)
        let base = bytesStart
        try storage.withUnsafeBytes { storage in
            for index in 0..<fields {
                let span = storage.loadUnaligned(fromByteOffset: index &* Span.size, as: Span.self)
                let name = UnsafeRawBufferPointer(rebasing: storage[(base &+ Int(span.nameStart))..<(base &+ span.valueStart)])
                let value = UnsafeRawBufferPointer(rebasing: storage[(base &+ span.valueStart)..<(base &+ span.end)])
                try body(name, value)
            }
        }
    }

    /// The byte range of field `index`'s name inside the storage passed to ``withUnsafeStorage(_:)``.
    @inlinable
    public func nameRange(at index: Int) -> Range<Int> {
        let span = span(at: index)
        return Int(span.nameStart)..<span.valueStart
    }

    /// The byte range of field `index`'s value inside the storage passed to ``withUnsafeStorage(_:)``.
    @inlinable
    public func valueRange(at index: Int) -> Range<Int> {
        let span = span(at: index)
        return span.valueStart..<span.end
    }

    /// Calls `body` with the arena holding every name and value, for code that hands the bytes
    /// to C (the pointer is valid only inside `body`).
    @inlinable
    public func withUnsafeStorage<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        let base = bytesStart
        return try storage.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[base...])) }
    }

    /// Whether the value of field `index` is exactly `bytes` (a `memcmp`, no allocation).
    public func valueEquals(at index: Int, _ bytes: [UInt8]) -> Bool {
        let range = valueRange(at: index)
        guard range.count == bytes.count else { return false }
        return withUnsafeStorage { storage in
            bytes.withUnsafeBytes { other in
                range.isEmpty || memcmp(storage.baseAddress! + range.lowerBound, other.baseAddress!, range.count) == 0
            }
        }
    }

    /// Whether the value of field `index` is exactly `text`'s UTF-8 (no allocation).
    public func valueEquals(at index: Int, _ text: String) -> Bool {
        let range = valueRange(at: index)
        guard range.count == text.utf8.count else { return false }
        let compared: Bool? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            withUnsafeStorage { storage in
                range.isEmpty || memcmp(storage.baseAddress! + range.lowerBound, utf8.baseAddress!, range.count) == 0
            }
        }
        return compared ?? valueBytes(at: index).elementsEqual(text.utf8)
    }

    /// The index of the first field with this (lower-case) name.
    @inlinable
    public func firstIndex(of name: HTTPFieldName) -> Int? {
        for index in 0..<count where nameEquals(index, name) {
            return index
        }
        return nil
    }

    /// How many fields carry this name.
    @inlinable
    public func count(of name: HTTPFieldName) -> Int {
        var total = 0
        for index in 0..<count where nameEquals(index, name) {
            total += 1
        }
        return total
    }

    /// The first value for this name, as a string.
    public func first(_ name: HTTPFieldName) -> String? {
        firstIndex(of: name).map { value(at: $0) }
    }

    /// Whether field `index` has exactly this name.
    @inlinable
    public func nameEquals(_ index: Int, _ name: HTTPFieldName) -> Bool {
        let span = span(at: index)
        let count = name.count
        guard Int(span.nameLength) == count else { return false }
        let other = name.utf8Start
        return withUnsafeStorage { bytes in
            var position = Int(span.nameStart)
            for offset in 0..<count {
                if bytes[position] != other[offset] { return false }
                position += 1
            }
            return true
        }
    }

    /// The length in bytes of field `index`'s name.
    @inlinable
    public func nameLength(at index: Int) -> Int {
        Int(span(at: index).nameLength)
    }

    /// Whether field `index`'s name starts with `prefix` (no allocation, no reference count).
    public func nameStarts(at index: Int, with prefix: StaticString) -> Bool {
        let span = span(at: index)
        let count = prefix.utf8CodeUnitCount
        guard Int(span.nameLength) >= count else { return false }
        return withUnsafeStorage { bytes in
            count == 0 || memcmp(bytes.baseAddress! + Int(span.nameStart), prefix.utf8Start, count) == 0
        }
    }

    /// The index of the first field whose name is `name` (a run-time string, matched exactly;
    /// names are lower case).
    public func firstIndex(named name: String) -> Int? {
        let wanted = Array(name.lowercased().utf8)
        return (0..<count).first { nameBytes(at: $0).elementsEqual(wanted) }
    }

    /// The first value for a run-time name (lower case).
    public func first(named name: String) -> String? {
        firstIndex(named: name).map { value(at: $0) }
    }

    /// All fields as string pairs (cold paths: recording queries, tests, logs).
    public var pairs: [(name: String, value: String)] {
        (0..<count).map { (name(at: $0), value(at: $0)) }
    }

    public static func == (lhs: HTTPHeaderList, rhs: HTTPHeaderList) -> Bool {
        lhs.count == rhs.count
            && (0..<lhs.count).allSatisfy {
                lhs.nameBytes(at: $0) == rhs.nameBytes(at: $0) && lhs.valueBytes(at: $0) == rhs.valueBytes(at: $0)
            }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for index in 0..<count {
            hasher.combine(nameBytes(at: index))
            hasher.combine(valueBytes(at: index))
        }
    }
}

/// A lower-case HTTP field name known at compile time.
///
/// Backed by a `StaticString`, so comparing against it on every request involves no reference
/// counting and no lazy global initialisation (an earlier `[UInt8]`-backed version cost a
/// retain/release and a `swift_once` check per comparison).
public struct HTTPFieldName: Sendable, Hashable, CustomStringConvertible {
    /// The name (lower case, ASCII).
    public let staticName: StaticString

    /// Creates a name; it must already be lower case, as HTTP/2 requires.
    @inlinable
    public init(_ name: StaticString) {
        self.staticName = name
    }

    /// Number of bytes.
    @inlinable public var count: Int { staticName.utf8CodeUnitCount }

    /// The name's bytes.
    @inlinable public var utf8Start: UnsafePointer<UInt8> { staticName.utf8Start }

    public var description: String { staticName.description }

    public static func == (lhs: HTTPFieldName, rhs: HTTPFieldName) -> Bool {
        lhs.description == rhs.description
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(description)
    }
}

extension HTTPFieldName {
    // Computed (not stored) so that using them costs nothing: no lazy global, no refcount.

    /// `authorization` — `bearer <provider token>` for APNs, `Bearer <access token>` for Google.
    @inlinable public static var authorization: Self { Self("authorization") }
    /// `content-type`.
    @inlinable public static var contentType: Self { Self("content-type") }
    /// `content-length`.
    @inlinable public static var contentLength: Self { Self("content-length") }
    /// `host` (HTTP/1.1's `:authority`).
    @inlinable public static var host: Self { Self("host") }
    /// `apns-id`: canonical UUID identifying the notification; echoed or generated.
    @inlinable public static var apnsID: Self { Self("apns-id") }
    /// `apns-unique-id`: returned in the sandbox environment only.
    @inlinable public static var apnsUniqueID: Self { Self("apns-unique-id") }
    /// `apns-expiration`: UNIX epoch seconds; 0 = deliver now or never.
    @inlinable public static var apnsExpiration: Self { Self("apns-expiration") }
    /// `apns-priority`: 10, 5 or 1.
    @inlinable public static var apnsPriority: Self { Self("apns-priority") }
    /// `apns-topic`: bundle ID plus the push type's suffix.
    @inlinable public static var apnsTopic: Self { Self("apns-topic") }
    /// `apns-collapse-id`: at most 64 bytes.
    @inlinable public static var apnsCollapseID: Self { Self("apns-collapse-id") }
    /// `apns-push-type`: one of the eleven push types.
    @inlinable public static var apnsPushType: Self { Self("apns-push-type") }
    /// `retry-after` (FCM and Google endpoints).
    @inlinable public static var retryAfter: Self { Self("retry-after") }
    /// `www-authenticate` (Google 401 responses).
    @inlinable public static var wwwAuthenticate: Self { Self("www-authenticate") }
}
