public import Crypto
import Foundation
import SwiftASN1
public import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading and writing the PEM files the local PKI keeps on disk (`ca.pem`, `ca-key.pem`,
/// `server.pem`, ...).
///
/// Private keys are written owner-read/write only (0600) from the moment the file exists, not
/// chmod-ed afterwards, so a key is never briefly readable by other users; certificates are
/// written 0644. Writes go to a temporary file in the same directory and are renamed into place,
/// so a crash never leaves a half-written key that the next start would fail to load.
public enum PEM {
    /// Permissions for private key files: owner read/write only.
    public static let privateKeyPermissions: UInt16 = 0o600
    /// Permissions for certificate files: world-readable.
    public static let certificatePermissions: UInt16 = 0o644

    /// A certificate as PEM (`-----BEGIN CERTIFICATE-----`).
    public static func pem(for certificate: Certificate) throws(PKIError) -> String {
        do {
            return PEMText.terminated(try certificate.serializeAsPEM().pemString)
        } catch {
            throw PKIError.certificateCreationFailed.with(detail: "cannot serialise certificate: \(error)")
        }
    }

    /// The first certificate in PEM text (later ones, e.g. a chain, are ignored).
    ///
    /// - Throws: ``PKIError/invalidPEM`` when there is no `CERTIFICATE` block, or
    ///   ``PKIError/invalidCertificate`` when it does not parse.
    public static func certificate(fromPEM pem: String) throws(PKIError) -> Certificate {
        guard let first = try certificates(fromPEM: pem).first else {
            throw PKIError.invalidPEM.with(detail: "no CERTIFICATE block")
        }
        return first
    }

    /// Every `CERTIFICATE` block in PEM text, in order; other block types and any text around
    /// blocks (such as `openssl pkcs12`'s `Bag Attributes`) are skipped.
    ///
    /// - Throws: ``PKIError/invalidPEM`` when the text is not PEM, or
    ///   ``PKIError/invalidCertificate`` when a certificate block does not parse.
    public static func certificates(fromPEM pem: String) throws(PKIError) -> [Certificate] {
        let blocks: [PEMText.Block]
        do {
            blocks = try PEMText.blocks(in: pem)
        } catch {
            throw PKIError.invalidPEM.with(detail: "\(error)")
        }
        var certificates: [Certificate] = []
        for block in blocks where block.label == "CERTIFICATE" {
            do {
                certificates.append(try Certificate(derEncoded: block.derBytes))
            } catch {
                throw PKIError.invalidCertificate.with(detail: "\(error)")
            }
        }
        return certificates
    }

    /// A P-256 private key as PKCS#8 PEM (a `PRIVATE KEY` PEM block), the form OpenSSL 3,
    /// curl, nghttp2 and swift-nio-ssl all read.
    public static func pem(for privateKey: P256.Signing.PrivateKey) -> String {
        PEMText.terminated(privateKey.pemRepresentation)
    }

    /// Reads a P-256 private key from PKCS#8 (`PRIVATE KEY`) or SEC1 (`EC PRIVATE KEY`) PEM.
    ///
    /// The first block of either type is used; other blocks (such as the `EC PARAMETERS` that
    /// `openssl ecparam -genkey` writes first) are skipped.
    ///
    /// - Throws: ``PKIError/invalidPEM`` when there is no such block, ``PKIError/unsupportedKey``
    ///   when it is not a P-256 key.
    public static func p256PrivateKey(fromPEM pem: String) throws(PKIError) -> P256.Signing.PrivateKey {
        let block: PEMText.Block?
        do {
            block = try PEMText.firstBlock(in: pem, labelledOneOf: ["PRIVATE KEY", "EC PRIVATE KEY"])
        } catch {
            throw PKIError.invalidPEM.with(detail: "\(error)")
        }
        guard let block else {
            throw PKIError.invalidPEM.with(detail: "no PRIVATE KEY or EC PRIVATE KEY block")
        }
        do {
            return try P256.Signing.PrivateKey(derRepresentation: block.derBytes)
        } catch {
            throw PKIError.unsupportedKey.with(detail: "not a P-256 private key: \(error)")
        }
    }

    /// Writes private key PEM to `path` with permissions 0600, atomically.
    public static func writePrivateKeyPEM(_ pem: String, to path: String) throws(PKIError) {
        try writeAtomically(pem, to: path, permissions: privateKeyPermissions)
    }

    /// Writes certificate PEM to `path` with permissions 0644, atomically.
    public static func writeCertificatePEM(_ pem: String, to path: String) throws(PKIError) {
        try writeAtomically(pem, to: path, permissions: certificatePermissions)
    }

    /// Reads a text file, e.g. a PEM file written by ``writeCertificatePEM(_:to:)``.
    public static func readText(at path: String) throws(PKIError) -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw PKIError.invalidPEM.with(detail: "cannot read \(path): \(error)")
        }
    }

    private static func writeAtomically(_ text: String, to path: String, permissions: UInt16) throws(PKIError) {
        let mode = mode_t(permissions)
        let temporaryPath = "\(path).tmp-\(UUID().uuidString)"
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw PKIError.fileWriteFailed.with(detail: "cannot create \(temporaryPath): \(lastErrorText())")
        }
        var renamed = false
        defer {
            if !renamed {
                unlink(temporaryPath)
            }
        }

        // The umask may have removed bits from `mode`; set exactly what was asked for.
        guard fchmod(descriptor, mode) == 0 else {
            let reason = lastErrorText()
            close(descriptor)
            throw PKIError.fileWriteFailed.with(detail: "cannot set permissions on \(temporaryPath): \(reason)")
        }

        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress, buffer.count)
            }
            if result < 0 {
                if errno == EINTR { continue }
                let reason = lastErrorText()
                close(descriptor)
                throw PKIError.fileWriteFailed.with(detail: "cannot write \(temporaryPath): \(reason)")
            }
            written += result
        }
        let syncResult = fsync(descriptor)
        let closeResult = close(descriptor)
        guard syncResult == 0, closeResult == 0 else {
            throw PKIError.fileWriteFailed.with(detail: "cannot flush \(temporaryPath): \(lastErrorText())")
        }
        guard rename(temporaryPath, path) == 0 else {
            throw PKIError.fileWriteFailed.with(detail: "cannot rename into \(path): \(lastErrorText())")
        }
        renamed = true
    }

    private static func lastErrorText() -> String {
        String(cString: strerror(errno))
    }
}
