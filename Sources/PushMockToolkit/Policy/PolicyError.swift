/// Why a policy file or a policy rule could not be used.
///
/// The ``description`` names the file, the place in it and the offending value, e.g.
/// `policy.json: frequencyCaps[1].window: "7 days" is not a duration (use 7d, 24h, 90m, …)`.
public typealias PolicyError = DefinitionFileError<PolicyErrorCode>

/// What kind of problem; compare with the static members.
public struct PolicyErrorCode: DefinitionErrorCode {
    enum Value: String, Hashable, Sendable {
        case unreadableFile = "unreadable-file"
        case invalidJSON = "invalid-json"
        case unsupportedVersion = "unsupported-version"
        case invalidDefinition = "invalid-definition"
        case unknownType = "unknown-type"
        case duplicateName = "duplicate-name"
        case unknownTimeZone = "unknown-time-zone"
    }

    let value: Value

    /// The file does not exist or cannot be read.
    public static let unreadableFile = Self(value: .unreadableFile)
    /// The file is not JSON.
    public static let invalidJSON = Self(value: .invalidJSON)
    /// `version` is missing or not `1`.
    public static let unsupportedVersion = Self(value: .unsupportedVersion)
    /// A member is unknown, missing, of the wrong type or has an impossible value.
    public static let invalidDefinition = Self(value: .invalidDefinition)
    /// A rule names a notification type the file does not define.
    public static let unknownType = Self(value: .unknownType)
    /// Two types, or two rules, have the same name.
    public static let duplicateName = Self(value: .duplicateName)
    /// A time-zone identifier Foundation does not know.
    public static let unknownTimeZone = Self(value: .unknownTimeZone)

    public static let all: [Self] = [
        .unreadableFile, .invalidJSON, .unsupportedVersion, .invalidDefinition, .unknownType, .duplicateName, .unknownTimeZone,
    ]

    public var description: String { value.rawValue }
}
