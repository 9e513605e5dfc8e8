/// `fcm_options.analytics_label` (message level and every platform): `^[a-zA-Z0-9-_.~%]{1,50}$`,
/// the pattern every Admin SDK enforces before sending. The server-side limit is undocumented;
/// the mock applies the same pattern.
public enum FCMAnalyticsLabel {
    /// The longest label.
    public static let maximumLength = 50

    /// Whether `label` matches `^[a-zA-Z0-9-_.~%]{1,50}$`.
    public static func isValid(_ label: String) -> Bool {
        let bytes = Array(label.utf8)
        return (1...maximumLength).contains(bytes.count) && bytes.allSatisfy(FCMASCII.isTopicCharacter)
    }
}
