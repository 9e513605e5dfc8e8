/// Why a string is not a topic name.
public enum FCMTopicNameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name is empty.
    case empty
    /// `message.topic` started with `/topics/`.
    case hasTopicsPrefix
    /// The first character outside `[a-zA-Z0-9-_.~%]`.
    case invalidCharacter(Character)

    public var description: String {
        switch self {
        case .empty: return "a topic name must not be empty"
        case .hasTopicsPrefix: return "the \"/topics/\" prefix must not be provided"
        case .invalidCharacter(let character):
            return "'\(character)' is not allowed; topic names must match [a-zA-Z0-9-_.~%]+"
        }
    }
}
