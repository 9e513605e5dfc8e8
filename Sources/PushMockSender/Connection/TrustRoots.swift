import NIOSSL

/// Which certificate authorities a sender trusts for the server's certificate.
public struct TrustRoots: Sendable, Hashable, CustomStringConvertible {
    private enum Storage: Sendable, Hashable {
        case system
        case pem(String)
        case file(String)
    }

    private let storage: Storage

    private init(_ storage: Storage) { self.storage = storage }

    /// The operating system's roots: what real APNs and FCM need.
    public static let system = TrustRoots(.system)

    /// The CA certificates in this PEM text, and nothing else (the mock's `certs/ca.pem`).
    public static func pem(_ text: String) -> TrustRoots { TrustRoots(.pem(text)) }

    /// The CA certificates in this PEM file, and nothing else.
    public static func file(_ path: String) -> TrustRoots { TrustRoots(.file(path)) }

    /// NIOSSL's form.
    func nioTrustRoots() throws(SenderError) -> NIOSSLTrustRoots {
        switch storage {
        case .system:
            return .default
        case .pem(let text):
            do {
                let certificates = try NIOSSLCertificate.fromPEMBytes(Array(text.utf8))
                guard !certificates.isEmpty else {
                    throw SenderError(.invalidCredentials, "the trust-root PEM holds no certificate")
                }
                return .certificates(certificates)
            } catch let error as SenderError {
                throw error
            } catch {
                throw SenderError(.invalidCredentials, "the trust-root PEM cannot be read: \(error)", cause: error)
            }
        case .file(let path):
            do {
                let certificates = try NIOSSLCertificate.fromPEMFile(path)
                guard !certificates.isEmpty else {
                    throw SenderError(.invalidCredentials, "\(path) holds no certificate")
                }
                return .certificates(certificates)
            } catch let error as SenderError {
                throw error
            } catch {
                throw SenderError(.invalidCredentials, "cannot read trust roots from \(path): \(error)", cause: error)
            }
        }
    }

    public var description: String {
        switch storage {
        case .system: "system"
        case .pem: "PEM"
        case .file(let path): path
        }
    }
}
