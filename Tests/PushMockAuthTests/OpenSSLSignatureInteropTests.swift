import Foundation
import PushMockAuth
import Testing

/// Checks ES256 interoperability against OpenSSL, the tool Apple's documentation uses to sign
/// provider tokens by hand (and whose output is DER, not JOSE's raw `R || S`).
@Suite("ES256 interoperability with openssl", .enabled(if: OpenSSLTool.isAvailable, OpenSSLTool.unavailableReason))
struct OpenSSLSignatureInteropTests {
    @Test func verifiesATokenSignedWithOpensslDgst() async throws {
        let directory = try TemporaryDirectory()
        let generate = try await OpenSSLTool.run(
            ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "AuthKey.p8"],
            in: directory
        )
        try #require(generate.succeeded, "openssl genpkey failed: \(generate.combinedOutput)")
        let key = try APNsSigningKey(p8FilePath: directory.path("AuthKey.p8"), keyID: "OPENSSL001", teamID: "TEAM000001")

        // The recipe from Apple's "Establishing a token-based connection to APNs".
        let signingInput =
            Base64URL.encode(#"{"alg":"ES256","kid":"OPENSSL001"}"#) + "."
            + Base64URL.encode(#"{"iss":"TEAM000001","iat":1700000000}"#)
        try directory.write(signingInput, to: "input.txt")
        let sign = try await OpenSSLTool.run(
            ["dgst", "-sha256", "-sign", "AuthKey.p8", "-out", "signature.der", "input.txt"],
            in: directory
        )
        try #require(sign.succeeded, "openssl dgst -sign failed: \(sign.combinedOutput)")
        let derSignature = try directory.readBytes("signature.der")
        #expect(derSignature.first == 0x30)

        let token = try APNsProviderToken(parsing: signingInput + "." + Base64URL.encode(derSignature))
        #expect(token.keyID == "OPENSSL001")
        #expect(token.teamID == "TEAM000001")
        #expect(token.issuedAt == 1_700_000_000)
        #expect(token.isSigned(by: key.publicKey))
        #expect(!token.isSigned(by: APNsSigningKey.generate(keyID: "X", teamID: "Y").publicKey))
    }

    @Test func opensslVerifiesOurDERSignatures() async throws {
        let directory = try TemporaryDirectory()
        let key = APNsSigningKey.generate(keyID: "OURS000001", teamID: "TEAM000001")
        try directory.write(key.publicKeyPEM, to: "public.pem")

        let token = try key.makeProviderToken(issuedAt: 1_700_000_000, signatureEncoding: .der)
        let parts = TokenSurgery.segments(of: token)
        try directory.write(parts[0] + "." + parts[1], to: "input.txt")
        try Data(Base64URL.decode(parts[2]) ?? []).write(to: URL(fileURLWithPath: directory.path("signature.der")))

        let verify = try await OpenSSLTool.run(
            ["dgst", "-sha256", "-verify", "public.pem", "-signature", "signature.der", "input.txt"],
            in: directory
        )
        #expect(verify.succeeded, "openssl rejected the signature: \(verify.combinedOutput)")
        #expect(verify.standardOutput.contains("Verified OK"))
    }

    @Test func readsKeysWithAnECParametersBlockFirst() async throws {
        let directory = try TemporaryDirectory()
        let generate = try await OpenSSLTool.run(["ecparam", "-name", "prime256v1", "-genkey", "-out", "key.pem"], in: directory)
        try #require(generate.succeeded, "openssl ecparam failed: \(generate.combinedOutput)")
        let pem = try directory.read("key.pem")
        #expect(pem.hasPrefix("-----BEGIN EC PARAMETERS-----"))

        let key = try APNsSigningKey(pem: pem, keyID: "K", teamID: "T")
        let publicKey = try await OpenSSLTool.run(["ec", "-in", "key.pem", "-pubout"], in: directory)
        #expect(publicKey.standardOutput == key.publicKeyPEM)
    }

    @Test func readsSEC1KeysWrittenByOpenssl() async throws {
        let directory = try TemporaryDirectory()
        let generate = try await OpenSSLTool.run(
            ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "sec1.pem"],
            in: directory
        )
        try #require(generate.succeeded, "openssl ecparam failed: \(generate.combinedOutput)")
        let sec1PEM = try directory.read("sec1.pem")
        #expect(sec1PEM.hasPrefix("-----BEGIN EC PRIVATE KEY-----"))

        let key = try APNsSigningKey(pem: sec1PEM, keyID: "K", teamID: "T")
        let publicKey = try await OpenSSLTool.run(["ec", "-in", "sec1.pem", "-pubout"], in: directory)
        try #require(publicKey.succeeded)
        #expect(publicKey.standardOutput == key.publicKeyPEM)

        // Our PKCS#8 export is readable by openssl.
        try directory.write(key.pkcs8PEM, to: "exported.p8")
        let check = try await OpenSSLTool.run(["pkey", "-in", "exported.p8", "-noout"], in: directory)
        #expect(check.succeeded, "openssl could not read the exported key: \(check.combinedOutput)")
    }
}
