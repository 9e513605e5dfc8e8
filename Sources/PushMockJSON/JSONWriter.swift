/// An append-only writer that builds compact JSON directly into a byte array.
///
/// The journal encoder runs once per request on the event loop, so it must not go through
/// `JSONEncoder`/`JSONSerialization` or intermediate `String`s. The writer appends UTF-8 bytes,
/// inserts commas automatically and escapes strings in one pass.
///
/// Comma handling needs no stack: a single flag records whether the next value at the current
/// level must be preceded by a comma. Opening a container or writing a key clears it; finishing
/// any value (scalar, `raw`, or a closed container) sets it.
///
/// Speed: every `Array.append` costs a uniqueness check, a capacity check and (for
/// `append(contentsOf:)`) a generic copy — tens of nanoseconds for tokens of a few bytes. The
/// writer therefore assembles small tokens in a 256-byte staging area stored inline in the
/// struct (a tuple, so no allocation) and moves it into the array only when it fills up or
/// the output is read, and it checks string contents for characters needing escapes eight
/// bytes at a time (see `SWAR`). Large strings and raw values go to the array directly.
///
/// The writer does not check structure (a key outside an object, an unclosed container, two keys
/// in a row); callers are code, not input, and tests validate the output with ``JSONScanner``.
///
/// ```swift
/// JSONWriter.write(into: &line) { w in
///     w.beginObject()
///     w.staticKey("status"); w.number(200)
///     w.key(name); w.string(value)
///     w.endObject()
/// }
/// ```
public struct JSONWriter: Sendable {
    /// Bytes already moved out of the staging area.
    @usableFromInline var storage: [UInt8]
    /// Small tokens waiting to be appended to `storage` in one copy.
    @usableFromInline var staging: Staging
    /// Number of valid bytes at the start of `staging`.
    @usableFromInline var stagedCount: Int
    /// Whether the next value or key at the current level needs a leading comma.
    @usableFromInline var needsComma: Bool

    /// Inline scratch memory: 32 words = 256 bytes, no heap allocation.
    @usableFromInline
    struct Staging: Sendable {
        @usableFromInline var words:
            (
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64
            )

        @inlinable
        init() {
            words = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        }
    }

    /// Size of the staging area in bytes.
    @inlinable
    static var stagingCapacity: Int { 256 }

    /// Everything written so far. Reading it after writing small tokens copies them out of the
    /// staging area (call ``flush()`` first to make reads free); assigning replaces all output.
    public var bytes: [UInt8] {
        get {
            guard stagedCount > 0 else { return storage }
            var result = storage
            let count = stagedCount
            withUnsafeBytes(of: staging) { result.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            return result
        }
        set {
            storage = newValue
            stagedCount = 0
        }
    }

    /// Starts a writer with `bytes` as the existing output (appended to, never inspected).
    @inlinable
    public init(bytes: [UInt8] = []) {
        storage = bytes
        staging = Staging()
        stagedCount = 0
        needsComma = false
    }

    /// Starts an empty writer whose buffer has room for `capacity` bytes.
    @inlinable
    public init(capacity: Int) {
        self.init()
        storage.reserveCapacity(capacity)
    }

    /// Runs `body` with a writer that appends to `buffer` in place (the array is moved in and
    /// out, never copied), so hot paths can reuse one buffer's capacity across calls.
    @inlinable
    public static func write<E: Error>(
        into buffer: inout [UInt8],
        _ body: (inout JSONWriter) throws(E) -> Void
    ) throws(E) {
        var writer = JSONWriter()
        swap(&writer.storage, &buffer)
        defer {
            writer.flush()
            swap(&writer.storage, &buffer)
        }
        try body(&writer)
    }

    /// Moves staged bytes into ``bytes``' storage, so that reading ``bytes`` does not copy.
    @inlinable
    public mutating func flush() {
        guard stagedCount > 0 else { return }
        let count = stagedCount
        stagedCount = 0
        withUnsafeBytes(of: &staging) { storage.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    /// Lets `body` write at most `maximum` (≤ ``stagingCapacity``) bytes into the staging area;
    /// `body` returns how many it wrote.
    @inlinable @inline(__always)
    mutating func stage(_ maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if stagedCount &+ maximum > Self.stagingCapacity { flush() }
        let offset = stagedCount
        let written = withUnsafeMutableBytes(of: &staging) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset)
        }
        stagedCount = offset &+ written
    }

    /// Takes the pending comma (if any) for the value about to be written.
    @inlinable @inline(__always)
    mutating func takeComma() -> Bool {
        let comma = needsComma
        needsComma = true
        return comma
    }

    // MARK: Structure

    /// Appends `byte`, preceded by a comma if one is due.
    @inlinable @inline(__always)
    mutating func appendSeparated(_ byte: UInt8) {
        let comma = needsComma
        stage(2) { pointer in
            if comma {
                pointer[0] = UInt8(ascii: ",")
                pointer[1] = byte
                return 2
            }
            pointer[0] = byte
            return 1
        }
    }

    /// Appends one byte.
    @inlinable @inline(__always)
    mutating func appendByte(_ byte: UInt8) {
        stage(1) { pointer in
            pointer[0] = byte
            return 1
        }
    }

    /// Writes `{`.
    @inlinable
    public mutating func beginObject() {
        appendSeparated(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Writes `}`.
    @inlinable
    public mutating func endObject() {
        appendByte(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Writes `[`.
    @inlinable
    public mutating func beginArray() {
        appendSeparated(UInt8(ascii: "["))
        needsComma = false
    }

    /// Writes `]`.
    @inlinable
    public mutating func endArray() {
        appendByte(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an object member name (escaped) and the `:`.
    @inlinable
    public mutating func key(_ name: String) {
        writeQuoted(name)
        appendByte(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a member name known at compile time *verbatim* — no escaping, just a copy. Use it
    /// for fixed field names in hot encoders; the name must not contain `"`, `\` or control
    /// characters (checked in debug builds) and must be shorter than 200 bytes.
    @inlinable
    public mutating func staticKey(_ name: StaticString) {
        let length = name.utf8CodeUnitCount
        precondition(length < 200, "static key too long")
        let comma = needsComma
        needsComma = false
        stage(length + 4) { pointer in
            var position = 0
            if comma {
                pointer[0] = UInt8(ascii: ",")
                position = 1
            }
            pointer[position] = UInt8(ascii: "\"")
            position += 1
            for offset in 0..<length {
                let byte = name.utf8Start[offset]
                assert(byte >= 0x20 && byte != 0x22 && byte != 0x5C, "static key needs escaping")
                pointer[position + offset] = byte
            }
            position += length
            pointer[position] = UInt8(ascii: "\"")
            pointer[position + 1] = UInt8(ascii: ":")
            return position + 2
        }
    }

    // MARK: Values

    /// Writes a string value, escaping `"`, `\` and control characters (as `\n`, `\t`…, or
    /// `\u00XX`); other bytes (including non-ASCII UTF-8 and DEL) are copied unchanged.
    @inlinable
    public mutating func string(_ value: String) {
        writeQuoted(value)
    }

    /// Writes a string value from bytes that must be valid UTF-8 (they are escaped like
    /// ``string(_:)`` but not validated).
    @inlinable
    public mutating func string(utf8 value: UnsafeRawBufferPointer) {
        writeQuoted(value)
    }

    /// Writes `bytes` as a quoted standard Base64 string (with padding) — how binary data is
    /// embedded without a detour through `Data`.
    public mutating func base64String(_ value: some Collection<UInt8>) {
        appendSeparated(UInt8(ascii: "\""))
        needsComma = true
        flush()
        Base64.encode(value, into: &storage)
        appendByte(UInt8(ascii: "\""))
    }

    /// Writes a signed integer.
    @inlinable
    public mutating func number(_ value: Int) {
        number(Int64(value))
    }

    /// Writes a signed 64-bit integer.
    @inlinable
    public mutating func number(_ value: Int64) {
        writeDecimal(value.magnitude, negative: value < 0)
    }

    /// Writes an unsigned 64-bit integer.
    @inlinable
    public mutating func number(_ value: UInt64) {
        writeDecimal(value, negative: false)
    }

    /// Writes a floating-point number in Swift's shortest round-tripping form; JSON has no
    /// NaN or infinity, so non-finite values are written as `null`.
    public mutating func number(_ value: Double) {
        guard value.isFinite else {
            null()
            return
        }
        var text = value.description
        text.withUTF8 { raw(UnsafeRawBufferPointer($0)) }
    }

    /// Writes `true` or `false`.
    @inlinable
    public mutating func bool(_ value: Bool) {
        writeLiteral(value ? "true" : "false")
    }

    /// Writes `null`.
    @inlinable
    public mutating func null() {
        writeLiteral("null")
    }

    /// Appends bytes that already form one valid JSON value (for example a compacted request
    /// body) without looking at them. Invalid bytes produce invalid output.
    @inlinable
    public mutating func raw(_ json: some Collection<UInt8>) {
        let done: Void? = json.withContiguousStorageIfAvailable { raw(UnsafeRawBufferPointer($0)) }
        if done == nil {
            let comma = takeComma()
            flush()
            if comma { storage.append(UInt8(ascii: ",")) }
            storage.append(contentsOf: json)
        }
    }

    /// Appends already-valid JSON bytes from a raw buffer; see ``raw(_:)-(Collection<UInt8>)``.
    @inlinable
    public mutating func raw(_ json: UnsafeRawBufferPointer) {
        let comma = takeComma()
        let count = json.count
        if count < Self.stagingCapacity / 2 {
            stage(count + 1) { pointer in
                var position = 0
                if comma {
                    pointer[0] = UInt8(ascii: ",")
                    position = 1
                }
                if let base = json.baseAddress {
                    (pointer + position).update(from: base.assumingMemoryBound(to: UInt8.self), count: count)
                }
                return position + count
            }
        } else {
            flush()
            if comma { storage.append(UInt8(ascii: ",")) }
            storage.append(contentsOf: json)
        }
    }

    /// Appends one value that `body` writes straight into the array — for callers with their
    /// own formatter. `body` must append exactly one complete, valid JSON value.
    @inlinable
    public mutating func rawValue(_ body: (inout [UInt8]) throws -> Void) rethrows {
        let comma = takeComma()
        flush()
        if comma { storage.append(UInt8(ascii: ",")) }
        try body(&storage)
    }

    /// Appends one value of at most `maximumLength` bytes (≤ 200) that `body` writes into
    /// scratch memory at the given pointer, returning how many bytes it wrote — the cheapest
    /// way to emit a small custom-formatted value such as a timestamp. `body` must write exactly
    /// one complete, valid JSON value and never more than `maximumLength` bytes.
    @inlinable
    public mutating func rawValue(maximumLength: Int, _ body: (UnsafeMutableRawPointer) -> Int) {
        precondition(maximumLength >= 0 && maximumLength <= 200, "maximumLength out of range")
        let comma = takeComma()
        stage(maximumLength + 1) { pointer in
            var position = 0
            if comma {
                pointer[0] = UInt8(ascii: ",")
                position = 1
            }
            let written = body(UnsafeMutableRawPointer(pointer + position))
            precondition(written >= 0 && written <= maximumLength, "rawValue wrote more than maximumLength")
            return position + written
        }
    }

    /// Writes one object member whose bytes, `"name":value` without a leading comma, were
    /// captured with ``capturingMember(_:)`` (a comma is added when one is due).
    package mutating func rawMember(_ member: [UInt8]) {
        let comma = takeComma()
        flush()
        if comma { storage.append(UInt8(ascii: ",")) }
        storage.append(contentsOf: member)
    }

    /// Runs `body`, which writes one or more object members, and returns the bytes it wrote
    /// without the leading comma, for ``rawMember(_:)``.
    package mutating func capturingMember(_ body: (inout JSONWriter) -> Void) -> [UInt8] {
        flush()
        let start = storage.count + (needsComma ? 1 : 0)
        body(&self)
        flush()
        return Array(storage[start...])
    }

    // MARK: Primitives

    /// Appends a short literal token, preceded by a comma if one is due.
    @inlinable
    mutating func writeLiteral(_ literal: StaticString) {
        let comma = takeComma()
        stage(6) { pointer in
            var position = 0
            if comma {
                pointer[0] = UInt8(ascii: ",")
                position = 1
            }
            for offset in 0..<literal.utf8CodeUnitCount {
                pointer[position] = literal.utf8Start[offset]
                position += 1
            }
            return position
        }
    }

    /// Appends `[,][-]digits`.
    @inlinable
    mutating func writeDecimal(_ value: UInt64, negative: Bool) {
        let comma = takeComma()
        var digits = 1
        var threshold: UInt64 = 10
        while digits < 20 && value >= threshold {
            digits += 1
            threshold &*= 10
        }
        stage(22) { pointer in
            var position = 0
            if comma {
                pointer[0] = UInt8(ascii: ",")
                position = 1
            }
            if negative {
                pointer[position] = UInt8(ascii: "-")
                position += 1
            }
            var remaining = value
            var index = position + digits
            repeat {
                let (quotient, digit) = remaining.quotientAndRemainder(dividingBy: 10)
                index -= 1
                pointer[index] = 0x30 &+ UInt8(truncatingIfNeeded: digit)
                remaining = quotient
            } while remaining != 0
            return position + digits
        }
    }

    /// Writes `value` as a quoted JSON string, using its contiguous UTF-8 storage directly when
    /// it has one (native strings always do).
    @inlinable
    mutating func writeQuoted(_ value: String) {
        let done: Void? = value.utf8.withContiguousStorageIfAvailable { utf8 in
            writeQuoted(UnsafeRawBufferPointer(utf8))
        }
        if done == nil {
            var copy = value
            copy.withUTF8 { writeQuoted(UnsafeRawBufferPointer($0)) }
        }
    }

    /// Writes `input` (UTF-8) as a quoted JSON string, preceded by a comma if one is due.
    @usableFromInline
    mutating func writeQuoted(_ input: UnsafeRawBufferPointer) {
        let comma = takeComma()
        let count = input.count
        guard let base = input.baseAddress, count > 0 else {
            stage(3) { pointer in
                var position = 0
                if comma {
                    pointer[0] = UInt8(ascii: ",")
                    position = 1
                }
                pointer[position] = UInt8(ascii: "\"")
                pointer[position + 1] = UInt8(ascii: "\"")
                return position + 2
            }
            return
        }
        let firstSpecial = Self.firstByteNeedingEscape(base, count)
        // Worst case every byte from the first special one becomes a six-byte \u00XX escape.
        let worstCase = 3 + firstSpecial + (count - firstSpecial) * 6
        if worstCase <= Self.stagingCapacity {
            stage(worstCase) { pointer in
                var position = 0
                if comma {
                    pointer[0] = UInt8(ascii: ",")
                    position = 1
                }
                pointer[position] = UInt8(ascii: "\"")
                position += 1
                var runStart = 0
                var index = firstSpecial
                while true {
                    let run = index - runStart
                    if run > 0 {
                        (pointer + position).update(
                            from: (base + runStart).assumingMemoryBound(to: UInt8.self), count: run)
                        position += run
                    }
                    guard index < count else { break }
                    position += Self.writeEscape(for: base.load(fromByteOffset: index, as: UInt8.self), to: pointer + position)
                    runStart = index + 1
                    index = runStart + Self.firstByteNeedingEscape(base + runStart, count - runStart)
                }
                pointer[position] = UInt8(ascii: "\"")
                return position + 1
            }
            return
        }
        // Long strings: straight into the array, copying clean runs in bulk.
        flush()
        storage.append(contentsOf: comma ? #",""#.utf8 : #"""#.utf8)
        var runStart = 0
        var index = firstSpecial
        while index < count {
            if index > runStart {
                storage.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[runStart..<index]))
            }
            Self.withEscape(for: base.load(fromByteOffset: index, as: UInt8.self)) { storage.append(contentsOf: $0) }
            runStart = index + 1
            index = runStart + Self.firstByteNeedingEscape(base + runStart, count - runStart)
        }
        if count > runStart {
            storage.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[runStart..<count]))
        }
        storage.append(UInt8(ascii: "\""))
    }

    /// Appends `value` to `output` as a quoted JSON string (used by the pretty printer).
    static func appendQuoted(_ value: String, to output: inout [UInt8]) {
        var writer = JSONWriter()
        swap(&writer.storage, &output)
        writer.writeQuoted(value)
        writer.flush()
        swap(&writer.storage, &output)
    }

    /// Offset of the first `"`, `\` or control byte in `base[0..<count]`, or `count`.
    @usableFromInline
    static func firstByteNeedingEscape(_ base: UnsafeRawPointer, _ count: Int) -> Int {
        var index = 0
        while index + 8 <= count {
            let mask = SWAR.stringSpecialMask(SWAR.load(base, index), includeNonASCII: false)
            if mask != 0 { return index + mask.trailingZeroBitCount >> 3 }
            index += 8
        }
        if index < count, count >= 8 {
            // The last 1–7 bytes as one word ending at the end: the bytes it shares with the
            // word before are clean, so its first special byte is the first of the tail. (The
            // byte loop below was a quarter of this function's samples on journal lines.)
            let start = count - 8
            let mask = SWAR.stringSpecialMask(SWAR.load(base, start), includeNonASCII: false)
            return mask == 0 ? count : start + mask.trailingZeroBitCount >> 3
        }
        while index < count {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            if byte < 0x20 || byte == 0x22 || byte == 0x5C { return index }
            index += 1
        }
        return count
    }

    /// Writes the escape sequence for `byte` (`"`, `\` or a control character) at `pointer`;
    /// returns its length (2 or 6).
    @usableFromInline
    static func writeEscape(for byte: UInt8, to pointer: UnsafeMutablePointer<UInt8>) -> Int {
        pointer[0] = 0x5C
        switch byte {
        case 0x22: pointer[1] = 0x22
        case 0x5C: pointer[1] = 0x5C
        case 0x0A: pointer[1] = UInt8(ascii: "n")
        case 0x0D: pointer[1] = UInt8(ascii: "r")
        case 0x09: pointer[1] = UInt8(ascii: "t")
        case 0x08: pointer[1] = UInt8(ascii: "b")
        case 0x0C: pointer[1] = UInt8(ascii: "f")
        default:
            pointer[1] = UInt8(ascii: "u")
            pointer[2] = UInt8(ascii: "0")
            pointer[3] = UInt8(ascii: "0")
            pointer[4] = hexDigit(byte >> 4)
            pointer[5] = hexDigit(byte & 0x0F)
            return 6
        }
        return 2
    }

    static func withEscape(for byte: UInt8, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 6) { escape in
            let length = writeEscape(for: byte, to: escape.baseAddress!)
            body(UnsafeMutableBufferPointer(rebasing: escape[0..<length]))
        }
    }

    @usableFromInline
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 &+ nibble : 0x61 &+ (nibble &- 10)
    }
}
