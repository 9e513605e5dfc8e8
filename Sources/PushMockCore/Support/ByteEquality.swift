#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Array where Element == UInt8 {
    /// Whether both arrays hold the same bytes, compared with `memcmp`: `==` on `[UInt8]`
    /// walks the elements one at a time through the generic `Equatable` path, which was the
    /// largest part of interning a 250-byte payload per push.
    package func hasSameBytes(as other: [UInt8]) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBytes { mine in other.withUnsafeBytes { theirs in mine.hasSameBytes(as: theirs) } }
    }
}

extension UnsafeRawBufferPointer {
    /// Whether both buffers hold the same bytes (`memcmp`).
    package func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        count == other.count
            && (isEmpty || baseAddress == other.baseAddress || memcmp(baseAddress!, other.baseAddress!, count) == 0)
    }
}
