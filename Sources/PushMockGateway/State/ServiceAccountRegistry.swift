@_spi(Locking) package import PushMockCore
package import _CryptoExtras

/// A Google service account the mock's token endpoint trusts: assertions signed with its key
/// are exchanged for access tokens that may call FCM for its project.
package struct ServiceAccountRecord: Sendable {
    /// `client_email` (the assertion's `iss`).
    package var clientEmail: String
    /// `private_key_id` (the assertion header's `kid`).
    package var privateKeyID: String
    /// The key's public half, to verify RS256 signatures.
    package var publicKey: _RSA.Signing.PublicKey
    /// `project_id`: the project whose FCM API its tokens may call.
    package var projectID: String
    /// Numeric project number (also accepted in `projects/{…}` paths), if known.
    package var projectNumber: String?

    package init(
        clientEmail: String, privateKeyID: String, publicKey: _RSA.Signing.PublicKey, projectID: String, projectNumber: String? = nil
    ) {
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.publicKey = publicKey
        self.projectID = projectID
        self.projectNumber = projectNumber
    }

    /// Whether a `projects/{project}` path segment names this account's project.
    package func owns(project: String) -> Bool {
        project == projectID || (projectNumber.map { $0 == project } ?? false)
    }
}

/// The service accounts the token endpoint trusts, by client e-mail.
package final class ServiceAccountRegistry: Sendable {
    private let accounts = SanitizerVisibleMutex<[String: ServiceAccountRecord]>([:])
    private let tokenURIs = SanitizerVisibleMutex<[String]>([])

    package init() {}

    package func register(_ account: ServiceAccountRecord) {
        accounts.withLock { $0[account.clientEmail] = account }
    }

    /// Adds or replaces `account` unless it is new and `limit` accounts are trusted already.
    package func register(_ account: ServiceAccountRecord, limit: Int) throws(RegistryFull) {
        try accounts.withLock { accounts throws(RegistryFull) in
            try RegistryFull.check(accounts, adding: [account.clientEmail], limit: limit, registry: .serviceAccounts)
            accounts[account.clientEmail] = account
        }
    }

    @discardableResult
    package func remove(clientEmail: String) -> Bool {
        accounts.withLock { $0.removeValue(forKey: clientEmail) != nil }
    }

    package func account(clientEmail: String) -> ServiceAccountRecord? {
        accounts.withLock { $0[clientEmail] }
    }

    /// The token URLs of the running gateway's own listeners (what a `token_uri` pointing at
    /// it says); assertions may name them as `aud`. Set once the listeners are bound.
    package var gatewayTokenURIs: [String] {
        get { tokenURIs.withLock { $0 } }
        set { tokenURIs.withLock { $0 = newValue } }
    }

    /// Every account, sorted by e-mail.
    package var all: [ServiceAccountRecord] {
        accounts.withLock { Array($0.values) }.sorted { $0.clientEmail < $1.clientEmail }
    }
}
