/// An FCM topic name.
///
/// Two spellings exist:
/// * the bare name `message.topic` takes — `^[a-zA-Z0-9-_.~%]+$`; Firebase: "Note: "/topics/"
///   prefix should not be provided" (the Admin SDKs strip it before sending, so a prefix on the
///   wire is a raw-HTTP sender's mistake and is rejected);
/// * the Instance ID form the topic-management endpoints take (`"to": "/topics/news"`), which
///   firebase-admin-go validates as `^(/topics/)?(private/)?[a-zA-Z0-9-_.~%]+$`.
///
/// A message's topic has no length limit (none is documented for sending); a subscription's
/// is at most ``maximumSubscribedLength`` characters (the topic-subscription API's pattern
/// `[a-zA-Z0-9-_.~%]{1,900}`, and the Android client SDK's cap), so that the names the gateway
/// keeps for its tokens stay small.
public struct FCMTopicName: Sendable, Hashable, CustomStringConvertible {
    /// The longest topic a token may subscribe to.
    public static let maximumSubscribedLength = 900

    /// Whether `text` is a bare topic name a token may subscribe to: valid and at most
    /// ``maximumSubscribedLength`` characters.
    public static func isSubscribable(_ text: some StringProtocol) -> Bool {
        text.utf8.count <= maximumSubscribedLength && isValid(String(text))
    }

    /// The name without `/topics/` or `private/`, e.g. `weather`.
    public let name: String
    /// Whether the IID form carried `private/`.
    public let isPrivate: Bool

    private init(name: String, isPrivate: Bool) {
        self.name = name
        self.isPrivate = isPrivate
    }

    /// The prefix of the IID form.
    public static let topicsPrefix = "/topics/"

    /// The IID form: `/topics/[private/]<name>`.
    public var iidForm: String { Self.topicsPrefix + (isPrivate ? "private/" : "") + name }

    public var description: String { (isPrivate ? "private/" : "") + name }

    /// Checks a bare topic name, as `message.topic` must be.
    public static func validate(_ text: String) -> Result<FCMTopicName, FCMTopicNameError> {
        if text.hasPrefix(topicsPrefix) { return .failure(.hasTopicsPrefix) }
        if let problem = checkCharacters(text) { return .failure(problem) }
        return .success(FCMTopicName(name: text, isPrivate: false))
    }

    /// Checks a topic in Instance ID form: `/topics/` and `private/` are optional.
    public static func validate(iidForm text: String) -> Result<FCMTopicName, FCMTopicNameError> {
        var rest = Substring(text)
        if rest.hasPrefix(topicsPrefix) { rest = rest.dropFirst(topicsPrefix.count) }
        var isPrivate = false
        if rest.hasPrefix("private/") {
            isPrivate = true
            rest = rest.dropFirst("private/".count)
        }
        if let problem = checkCharacters(rest) { return .failure(problem) }
        return .success(FCMTopicName(name: String(rest), isPrivate: isPrivate))
    }

    /// Whether `text` is a valid bare topic name.
    public static func isValid(_ text: String) -> Bool {
        if case .success = validate(text) { return true }
        return false
    }

    private static func checkCharacters(_ text: some StringProtocol) -> FCMTopicNameError? {
        guard !text.isEmpty else { return .empty }
        for character in text {
            guard let ascii = character.asciiValue, FCMASCII.isTopicCharacter(ascii) else {
                return .invalidCharacter(character)
            }
        }
        return nil
    }
}
