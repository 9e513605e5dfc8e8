public import ArgumentParser
import Foundation
import PushMockAuth

/// `pushmock provider-token`: prints an APNs provider token (ES256 JWT) for curl, h2load or
/// any client that takes a ready-made bearer token.
struct ProviderToken: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "provider-token",
        abstract: "Print an APNs provider token (JWT) signed with a .p8 key.",
        discussion: """
            Defaults to the sample key `pushmock serve` wrote (certs/apns-sample-key.p8 and
            its key id and team id), so this works against a fresh gateway:
              curl -H "authorization: bearer $(pushmock provider-token)" …
            """
    )

    @Option(help: "The .p8 signing key.")
    var key = "certs/apns-sample-key.p8"

    @Option(name: .customLong("key-id"), help: "Key ID (default: from the sample key's metadata).")
    var keyID: String?

    @Option(name: .customLong("team-id"), help: "Team ID (default: from the sample key's metadata).")
    var teamID: String?

    @Option(name: .customLong("issued-at"), help: "iat in seconds since 1970 (default: now).")
    var issuedAt: Int64?

    @Option(help: "Signature encoding: raw (JWT libraries) or der (openssl, Java).")
    var signature: ES256.SignatureEncoding = .raw

    func run() throws {
        var keyID = self.keyID
        var teamID = self.teamID
        if keyID == nil || teamID == nil {
            let metadataPath = (key as NSString).deletingPathExtension + ".json"
            if let data = FileManager.default.contents(atPath: metadataPath),
                let metadata = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            {
                keyID = keyID ?? metadata["keyId"] as? String
                teamID = teamID ?? metadata["teamId"] as? String
            }
        }
        guard let keyID, let teamID else {
            throw ValidationError("--key-id and --team-id are required for \(key) (no metadata file next to it).")
        }
        let signingKey = try APNsSigningKey(p8FilePath: key, keyID: keyID, teamID: teamID)
        let token = try signingKey.makeProviderToken(
            issuedAt: issuedAt ?? Int64(Date().timeIntervalSince1970),
            signatureEncoding: signature
        )
        print(token)
    }
}

extension ES256.SignatureEncoding: ExpressibleByArgument {}
