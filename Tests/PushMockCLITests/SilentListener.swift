import Glibc

/// A listening TCP socket on 127.0.0.1 that never accepts: the kernel completes every
/// handshake and the client's bytes wait in its queue forever. Closed when released.
///
/// `listens: false` binds the port without listening: every connection is refused, and,
/// unlike a port that was merely free a moment ago, no test running alongside can take it.
final class SilentListener {
    let descriptor: Int32
    let port: Int

    init(listens: Bool = true) throws {
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listening >= 0 else { throw ServeProcessError("socket() failed: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, !listens || listen(listening, 16) == 0 else {
            Glibc.close(listening)
            throw ServeProcessError("bind/listen failed: \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening, $0, &length) }
        }
        descriptor = listening
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { Glibc.close(descriptor) }
}
