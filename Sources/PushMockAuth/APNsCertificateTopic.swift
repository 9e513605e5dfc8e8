/// One entry of an Apple multi-topic push certificate: a topic and the kinds of push it may
/// carry.
///
/// In the certificate (extension `1.2.840.113635.100.6.3.6`) the list is
/// `SEQUENCE { UTF8String topic, SEQUENCE { UTF8String kind, ... }, UTF8String topic, ... }`. Apple
/// lists the VoIP and complication topics explicitly (`com.example.app.voip` with kind `voip`),
/// so kinds are kept as the strings Apple wrote rather than a closed enum.
public struct APNsCertificateTopic: Sendable, Hashable, Codable {
    /// The kind of the main app topic.
    public static let appKind = "app"
    /// The kind of a VoIP (PushKit) topic, `<bundle>.voip`.
    public static let voipKind = "voip"
    /// The kind of a watchOS complication topic, `<bundle>.complication`.
    public static let complicationKind = "complication"

    /// The topic, e.g. `com.example.app` or `com.example.app.voip`.
    public var topic: String
    /// The kinds of push the topic is for, e.g. `["app"]`.
    public var kinds: [String]

    /// Creates a topic entry.
    public init(topic: String, kinds: [String]) {
        self.topic = topic
        self.kinds = kinds
    }
}
