package import PushMockCore

/// How the gateway plays the Expo push service (`/--/api/v2/push/send`, `getReceipts`).
public struct ExpoOptions: Sendable, Hashable {
    /// Answer `DeviceNotRegistered` tickets for well-formed tokens the registry does not know.
    /// Default: false — unknown tokens are accepted (zero-configuration use, as for FCM).
    public var rejectUnknownTokens: Bool
    /// How long after the ticket its receipt can be fetched (the relay to APNs/FCM). Expo says
    /// receipts are "often available much sooner" than the 15 minutes it asks senders to wait;
    /// the default, 2 seconds of gateway time, makes an immediate poll see nothing (as it
    /// often does in production) while a test advancing the virtual clock never waits long.
    public var receiptDelay: Duration
    /// How long a receipt is kept (Expo: "cleared after 24 hours"). Default: 24 hours.
    public var receiptLifetime: Duration
    /// Receipts kept at most; beyond it the oldest are dropped as if expired. Default 100 000
    /// (about 30 MB), like the recordings' default: a long load test must not grow memory for
    /// a day. Expo itself keeps every receipt for 24 hours; raise this to keep more.
    public var maximumReceipts: Int
    /// Notifications per second per project before `TOO_MANY_REQUESTS` (Expo: 600).
    public var notificationsPerSecondPerProject: Int
    /// Receipt ids per `getReceipts` request (Expo: 1000).
    public var maximumReceiptIDs: Int
    /// gzip answers when the client's `Accept-Encoding` allows it. Default: true.
    public var compressesResponses: Bool
    /// The largest request body accepted after decompression. Default: 1 MiB.
    public var maximumDecodedBodyBytes: Int
    /// `required` (default): a project with enhanced push security refuses requests without one
    /// of its access tokens. `none` (`--auth none`): access tokens are not checked.
    public var authentication: APNsOptions.Authentication
    /// The rules messages are validated with (docs/expo.md §9 lists the UNVERIFIED choices).
    package var validation: ExpoValidationOptions

    public init(
        rejectUnknownTokens: Bool = false,
        receiptDelay: Duration = .seconds(2),
        receiptLifetime: Duration = .seconds(24 * 3600),
        maximumReceipts: Int = 100_000,
        notificationsPerSecondPerProject: Int = 600,
        maximumReceiptIDs: Int = 1000,
        compressesResponses: Bool = true,
        maximumDecodedBodyBytes: Int = 1 << 20,
        authentication: APNsOptions.Authentication = .required
    ) {
        self.authentication = authentication
        self.rejectUnknownTokens = rejectUnknownTokens
        self.receiptDelay = receiptDelay
        self.receiptLifetime = receiptLifetime
        self.maximumReceipts = maximumReceipts
        self.notificationsPerSecondPerProject = notificationsPerSecondPerProject
        self.maximumReceiptIDs = maximumReceiptIDs
        self.compressesResponses = compressesResponses
        self.maximumDecodedBodyBytes = maximumDecodedBodyBytes
        self.validation = ExpoValidationOptions()
    }

    public static let defaults = ExpoOptions()
}
