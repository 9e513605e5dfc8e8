import NIOCore
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a connection could not be opened, in words a person reads at a terminal.
///
/// NIO's own descriptions are built for logs: a refused connection to the local gateway reads
/// `Connection errors: SingleConnectionFailure(target: [IPv4]127.0.0.1/127.0.0.1:2197, error:
/// connection reset (error set): Connection refused) (errno: 111))`, and the sender repeated it
/// as the error's cause. Callers put this text after "cannot connect to URL: " and keep the
/// error itself for programs.
package enum ConnectFailureText {
    /// Whether `error` is about opening the connection (DNS, TCP, the connect timeout), as
    /// opposed to one that was open.
    package static func isConnectFailure(_ error: any Error) -> Bool {
        switch error {
        case is NIOConnectionError: true
        case ChannelError.connectTimeout: true
        case let error as IOError: error.errnoCode == ECONNREFUSED || error.errnoCode == ETIMEDOUT || error.errnoCode == EHOSTUNREACH
        default: false
        }
    }

    /// `connection refused`, `timed out after 10 s`, `cannot resolve push.example`, …; the
    /// error's own description for anything else.
    package static func describe(_ error: any Error) -> String {
        switch error {
        case let error as NIOConnectionError:
            // One failure per address tried (IPv6 and IPv4 of `localhost`, say); the same
            // reason for all of them is said once.
            let reasons = error.connectionErrors.map { describe($0.error) }
            if let first = reasons.first {
                return reasons.allSatisfy { $0 == first }
                    ? first
                    : zip(error.connectionErrors, reasons).map { "\($0.target): \($1)" }.joined(separator: "; ")
            }
            if error.dnsAError != nil || error.dnsAAAAError != nil {
                return "cannot resolve \(error.host)"
            }
            return "no address to connect to for \(error.host)"
        case ChannelError.connectTimeout(let timeout):
            return "timed out after \(seconds(timeout))"
        case let error as IOError:
            return systemMessage(error.errnoCode)
        case let error as NIOSSLError:
            return describe(error)
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            // NIOSSL: "Couldn't find <none> in certificate from peer".
            return "the server's TLS certificate is not for this host name"
        default:
            return "\(error)"
        }
    }

    /// NIOSSL's errors print BoringSSL's numbers and the build path of the C file that failed
    /// (`handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435581 error:1000007d:SSL
    /// routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at /…/handshake.cc:320]))`).
    private static func describe(_ error: NIOSSLError) -> String {
        switch error {
        case .handshakeFailed(.sslError(let errors)):
            let reasons = errors.map(boringSSLReason)
            if reasons.contains("CERTIFICATE_VERIFY_FAILED") {
                return
                    "the server's TLS certificate could not be verified (expired, not valid yet, or not issued by a CA you trust: see --ca)"
            }
            return "the TLS handshake failed (\(reasons.joined(separator: ", ")))"
        case .uncleanShutdown:
            return "the server closed the TLS connection"
        default:
            return "TLS error: \(error)"
        }
    }

    /// `CERTIFICATE_VERIFY_FAILED` from `Error: 268435581 error:1000007d:SSL
    /// routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at /path/handshake.cc:320`.
    static func boringSSLReason(_ error: BoringSSLInternalError) -> String {
        let text = error.description
        let message = text.firstRange(of: " at ").map { text[..<$0.lowerBound] } ?? text[...]
        return message.split(separator: ":").last.map { String($0.drop { $0 == " " }) } ?? String(message)
    }

    /// `strerror` in lower case, as it reads in the middle of a sentence.
    private static func systemMessage(_ code: CInt) -> String {
        guard let text = strerror(code) else { return "system error \(code)" }
        let message = String(cString: text)
        guard let first = message.first else { return "system error \(code)" }
        return first.lowercased() + message.dropFirst()
    }

    private static func seconds(_ amount: TimeAmount) -> String {
        let milliseconds = amount.nanoseconds / 1_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
