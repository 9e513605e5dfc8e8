public import PushMockCore
public import PushMockJSON
public import PushMockRecording

/// A link found in a notification, and where.
public struct FoundDeepLink: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The link text; for a value that is not a string, its compact JSON.
    public var link: String
    /// The concrete JSON path it was found at: `$.actions[0].link`, `$.message.data.deep_link`.
    public var location: String
    /// `false` when the location held a number, object, … instead of a string.
    public var isString: Bool

    public init(link: String, location: String, isString: Bool = true) {
        self.link = link
        self.location = location
        self.isString = isString
    }

    public var description: String { "\(location): \(link)" }
}

/// Finds the deep links in a notification: every configured ``DeepLinkLocation`` of the record's
/// platform, in order, each concrete place reported once.
///
/// ```swift
/// let links = DeepLinkExtractor().links(in: record)
/// #expect(links.map(\.link) == ["loop://protocols/p1/log"])
/// ```
public struct DeepLinkExtractor: Sendable, Hashable {
    public var locations: [DeepLinkLocation]

    /// An extractor looking at `locations` (``DeepLinkLocation/defaults`` when not given).
    public init(locations: [DeepLinkLocation] = DeepLinkLocation.defaults) {
        self.locations = locations
    }

    /// The links in a recorded APNs or FCM send; empty for other records and non-JSON bodies.
    public func links(in record: ExchangeRecord) -> [FoundDeepLink] {
        guard let platform = record.platform.pushService, let payload = record.request.body.jsonValue else {
            return []
        }
        return links(inPayload: payload, platform: platform)
    }

    /// The links in an APNs payload or an FCM `SendMessageRequest` body.
    public func links(inPayload payload: JSONValue, platform: Platform) -> [FoundDeepLink] {
        var found: [FoundDeepLink] = []
        var seen = Set<String>()
        for location in locations where location.platform == platform {
            let hasWildcard = location.path.components.contains(.wildcard)
            for (components, value) in Self.evaluate(location.path.components, in: payload) {
                let place = DeepLinkLocation.format(components)
                let link: FoundDeepLink
                switch value {
                case .null:
                    continue
                case .string(let text):
                    if (hasWildcard || location.urlsOnly) && !Self.looksLikeURL(text) { continue }
                    link = FoundDeepLink(link: text, location: place)
                default:
                    if hasWildcard || location.urlsOnly { continue }
                    link = FoundDeepLink(link: value.compactString, location: place, isString: false)
                }
                if seen.insert(place).inserted { found.append(link) }
            }
        }
        return found
    }

    /// Like ``PushMockJSON/JSONPath/evaluate(_:)``, but keeps the concrete path of each match.
    static func evaluate(_ components: [JSONPath.Component], in root: JSONValue) -> [([JSONPath.Component], JSONValue)] {
        var current: [([JSONPath.Component], JSONValue)] = [([], root)]
        for component in components {
            var next: [([JSONPath.Component], JSONValue)] = []
            for (path, value) in current {
                switch (component, value) {
                case (.key(let name), .object(let object)):
                    if let member = object[name] { next.append((path + [.key(name)], member)) }
                case (.index(let index), .array(let elements)):
                    let resolved = index < 0 ? elements.count + index : index
                    if elements.indices.contains(resolved) { next.append((path + [.index(resolved)], elements[resolved])) }
                case (.wildcard, .object(let object)):
                    next += object.members.map { (path + [.key($0.key)], $0.value) }
                case (.wildcard, .array(let elements)):
                    next += elements.enumerated().map { (path + [.index($0.offset)], $0.element) }
                default:
                    break
                }
            }
            current = next
        }
        return current
    }

    /// `scheme:` at the start (RFC 3986 scheme syntax).
    static func looksLikeURL(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":") else { return false }
        return DeepLinkURL.isScheme(text[..<colon])
    }
}
