public import PushMockJSON

/// A `messages:send` request body that passed ``FCMMessageValidator``.
public struct FCMSendRequest: Sendable, Hashable {
    /// `validate_only` / `validateOnly`: check everything, deliver nothing, answer
    /// `projects/<p>/messages/fake_message_id`.
    public var validateOnly: Bool
    /// The validated message.
    public var message: FCMMessage
    /// The `message` object exactly as sent (member order, spellings and duplicates kept), for
    /// recording.
    public var rawMessage: JSONValue

    public init(validateOnly: Bool, message: FCMMessage, rawMessage: JSONValue) {
        self.validateOnly = validateOnly
        self.message = message
        self.rawMessage = rawMessage
    }
}
