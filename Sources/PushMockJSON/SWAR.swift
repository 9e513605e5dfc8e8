/// "SIMD within a register" helpers: test eight bytes at once with plain 64-bit arithmetic.
///
/// Most JSON string content is plain ASCII without quotes, backslashes or control characters;
/// checking a word at a time lets the scanner and the writer skip such runs about eight times
/// faster than byte by byte, portably and without SIMD intrinsics.
///
/// The masks use the classic "has zero byte" trick: `(x - 0x01…01) & ~x & 0x80…80` has the high
/// bit set in every byte of `x` that is zero. Borrows can only create false positives in bytes
/// *above* a true positive, so the lowest set bit (words are loaded little-endian) always
/// identifies the first special byte exactly; callers only use that position.
@usableFromInline
enum SWAR {
    @inlinable static var ones: UInt64 { 0x0101_0101_0101_0101 }
    @inlinable static var highBits: UInt64 { 0x8080_8080_8080_8080 }

    /// Loads eight bytes at `offset` as a little-endian word (byte 0 in the low bits).
    @inlinable @inline(__always)
    static func load(_ base: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// High bit set in (at least) the first byte that is `"`, `\`, below 0x20 — or, when
    /// `includeNonASCII`, at or above 0x80. Zero when no byte is special.
    @inlinable @inline(__always)
    static func stringSpecialMask(_ word: UInt64, includeNonASCII: Bool) -> UInt64 {
        let control = (word &- 0x20 &* ones) & ~word & highBits
        let quote = word ^ (0x22 &* ones)
        let quoteMask = (quote &- ones) & ~quote & highBits
        let backslash = word ^ (0x5C &* ones)
        let backslashMask = (backslash &- ones) & ~backslash & highBits
        let special = control | quoteMask | backslashMask
        return includeNonASCII ? special | (word & highBits) : special
    }
}
