import PushMockCore
public import PushMockJSON
public import PushMockRecording

/// The content of a golden file: a format marker, a version, and one entry per notification.
///
/// ```json
/// {
///   "format": "pushmock-golden",
///   "version": 1,
///   "notifications": [
///     { "platform": "apns", "method": "POST", "path": "/3/device/<token-1>", … }
///   ]
/// }
/// ```
///
/// The text is pretty-printed with two-space indentation and one member or element per line,
/// members in the order the normaliser builds them (payload members sorted by name), so a
/// changed field is a one-line change in review. The format is described in
/// `docs/golden-files.md`.
public struct GoldenDocument: Sendable, Hashable {
    /// The value of `format`.
    public static let formatName = "pushmock-golden"
    /// The version this PushMock writes, and the newest it reads.
    public static let formatVersion = 1
    /// The file name suffix: `<name>.golden.json`.
    public static let fileExtension = ".golden.json"

    /// The normalised entries, in file order.
    public var entries: [JSONValue]

    /// A document with these entries.
    public init(entries: [JSONValue]) {
        self.entries = entries
    }

    /// The document for `records`, normalised as `configuration` says.
    public init(records: some Sequence<ExchangeRecord>, configuration: GoldenConfiguration = GoldenConfiguration()) {
        self.init(entries: GoldenNormalizer(configuration: configuration).entries(for: records))
    }

    /// Reads a golden file's text.
    /// - Throws: ``GoldenError/Code/invalidFile`` when the text is not JSON, not a golden file,
    ///   or of a newer version.
    public init(parsing text: String, path: String? = nil) throws(GoldenError) {
        let location = path.map { " \($0)" } ?? ""
        let value: JSONValue
        do {
            value = try JSONValue(parsing: text)
        } catch {
            let conflict = text.contains("\n<<<<<<< ") || text.hasPrefix("<<<<<<< ") ? " It contains merge-conflict markers." : ""
            throw GoldenError(
                .invalidFile,
                "Golden file\(location) is not valid JSON (\(readable: error)).\(conflict) Fix it, or re-record it with \(GoldenEnvironment.recordVariable)=1.",
                path: path
            )
        }
        guard value["format"]?.stringValue == Self.formatName else {
            throw GoldenError(
                .invalidFile,
                "Golden file\(location) is not a PushMock golden file (\"format\" is not \"\(Self.formatName)\").",
                path: path
            )
        }
        guard let version = value["version"]?.intValue, version >= 1 else {
            throw GoldenError(.invalidFile, "Golden file\(location) has no valid \"version\".", path: path)
        }
        guard version <= Self.formatVersion else {
            throw GoldenError(
                .invalidFile,
                "Golden file\(location) has format version \(version); this PushMock reads version \(Self.formatVersion) and older. Update PushMock.",
                path: path
            )
        }
        guard let entries = value["notifications"]?.arrayValue else {
            throw GoldenError(.invalidFile, "Golden file\(location) has no \"notifications\" array.", path: path)
        }
        self.init(entries: entries)
    }

    /// The whole document as a JSON value.
    public var jsonValue: JSONValue {
        .object([
            "format": .string(Self.formatName),
            "version": JSONValue(Self.formatVersion),
            "notifications": .array(entries),
        ])
    }

    /// The file's text: pretty-printed, ending with a newline.
    public var text: String {
        var output = ""
        GoldenText.append(jsonValue, to: &output, indent: 0)
        output += "\n"
        return output
    }
}

/// The pretty printer for golden files. Unlike ``JSONValue/canonicalString`` it keeps member
/// order, because the normaliser chooses a reading order (platform, path, headers, payload,
/// response) and sorts only where order carries no meaning.
enum GoldenText {
    static func append(_ value: JSONValue, to output: inout String, indent: Int) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            output += "[\n"
            for (index, element) in elements.enumerated() {
                output += String(repeating: " ", count: indent + 2)
                append(element, to: &output, indent: indent + 2)
                output += index == elements.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: indent) + "]"
        case .object(let object) where !object.isEmpty:
            output += "{\n"
            for (index, member) in object.members.enumerated() {
                output += String(repeating: " ", count: indent + 2)
                output += JSONValue.string(member.key).compactString + ": "
                append(member.value, to: &output, indent: indent + 2)
                output += index == object.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: indent) + "}"
        default:
            output += value.compactString
        }
    }
}
