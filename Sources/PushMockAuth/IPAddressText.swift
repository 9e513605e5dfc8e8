#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Converts IP address text to the network-order bytes a subjectAltName `iPAddress` holds.
enum IPAddressText {
    /// 4 bytes for IPv4 (`127.0.0.1`), 16 for IPv6 (`::1`, optionally in brackets), `nil` for
    /// anything else. Uses `inet_pton` so that every form the OS accepts (compressed IPv6,
    /// IPv4-mapped IPv6) is accepted here too.
    static func networkBytes(_ text: String) -> [UInt8]? {
        var address = text
        if address.hasPrefix("["), address.hasSuffix("]") {
            address = String(address.dropFirst().dropLast())
        }

        var ipv4 = in_addr()
        if inet_pton(AF_INET, address, &ipv4) == 1 {
            return withUnsafeBytes(of: &ipv4) { Array($0) }
        }
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, address, &ipv6) == 1 {
            return withUnsafeBytes(of: &ipv6) { Array($0) }
        }
        return nil
    }
}
