/// Why a route table, a route pattern or a link location could not be used.
///
/// The ``description`` names the file, the place in it and the offending value, e.g.
/// `routes.json: routes[2].pattern: "loop://chat?context={ctx": unterminated "{" at offset 20`.
public typealias DeepLinkError = DefinitionFileError<DeepLinkErrorCode>

/// What kind of problem; compare with the static members.
public struct DeepLinkErrorCode: DefinitionErrorCode {
    enum Value: String, Hashable, Sendable {
        case unreadableFile = "unreadable-file"
        case invalidJSON = "invalid-json"
        case unsupportedVersion = "unsupported-version"
        case invalidDefinition = "invalid-definition"
        case invalidPattern = "invalid-pattern"
        case invalidScreen = "invalid-screen"
        case duplicateRouteName = "duplicate-route-name"
        case invalidLocation = "invalid-location"
    }

    let value: Value

    /// The file does not exist or cannot be read.
    public static let unreadableFile = Self(value: .unreadableFile)
    /// The file is not JSON.
    public static let invalidJSON = Self(value: .invalidJSON)
    /// `version` is missing or not `1`.
    public static let unsupportedVersion = Self(value: .unsupportedVersion)
    /// A member is unknown, missing or of the wrong type.
    public static let invalidDefinition = Self(value: .invalidDefinition)
    /// A route pattern cannot be parsed.
    public static let invalidPattern = Self(value: .invalidPattern)
    /// A screen template cannot be parsed or uses a parameter its pattern does not capture.
    public static let invalidScreen = Self(value: .invalidScreen)
    /// Two routes have the same name.
    public static let duplicateRouteName = Self(value: .duplicateRouteName)
    /// A link location is not a valid JSON path.
    public static let invalidLocation = Self(value: .invalidLocation)

    public static let all: [Self] = [
        .unreadableFile, .invalidJSON, .unsupportedVersion, .invalidDefinition, .invalidPattern, .invalidScreen,
        .duplicateRouteName, .invalidLocation,
    ]

    public var description: String { value.rawValue }
}
