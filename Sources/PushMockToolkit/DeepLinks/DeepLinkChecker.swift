public import PushMockCore
public import PushMockJSON
public import PushMockRecording

/// Checks the deep links of recorded notifications against a ``RouteTable``: finds the links
/// (``DeepLinkExtractor``), resolves each, and reports notifications without a link, links that
/// match no route or only the fallback, malformed links and empty parameters.
///
/// ```swift
/// let checker = DeepLinkChecker(routes: try RouteTable(contentsOfFile: "routes.json"))
/// let report = checker.check(store.records())
/// #expect(report.isClean, "\(report)")
/// ```
public struct DeepLinkChecker: Sendable {
    public struct Options: Sendable, Hashable {
        /// A visible notification without any link is a ``DeepLinkProblemKind/noLink`` problem.
        public var requireLink: Bool
        /// Also require links on silent notifications (background pushes, FCM data-only
        /// messages), which the user never taps.
        public var requireLinkOnSilent: Bool
        /// A link that only reaches the table's fallback is a ``DeepLinkProblemKind/fallback``
        /// problem.
        public var fallbackIsProblem: Bool
        /// Also check sends the service rejected (non-200) or only validated (FCM
        /// `validate_only`); by default only notifications that reached a device count.
        public var includeRejected: Bool

        public init(
            requireLink: Bool = true, requireLinkOnSilent: Bool = false, fallbackIsProblem: Bool = true, includeRejected: Bool = false
        ) {
            self.requireLink = requireLink
            self.requireLinkOnSilent = requireLinkOnSilent
            self.fallbackIsProblem = fallbackIsProblem
            self.includeRejected = includeRejected
        }
    }

    public var routes: RouteTable
    public var extractor: DeepLinkExtractor
    public var options: Options

    /// A checker; the extractor defaults to the table's ``RouteTable/linkLocations``, else to
    /// ``DeepLinkLocation/defaults``.
    public init(routes: RouteTable, extractor: DeepLinkExtractor? = nil, options: Options = Options()) {
        self.routes = routes
        self.extractor = extractor ?? DeepLinkExtractor(locations: routes.linkLocations ?? DeepLinkLocation.defaults)
        self.options = options
    }

    /// Checks every APNs, FCM and Expo notification among `records`, in the order given; each
    /// message of an Expo request of several is checked on its own (``reports(for:)``).
    public func check(_ records: some Sequence<ExchangeRecord>) -> DeepLinkReport {
        DeepLinkReport(notifications: records.flatMap { reports(for: $0) })
    }

    /// The checks of one record's notifications: one for an APNs or FCM send, one per message
    /// of an Expo request of several (its own links, its own silence, so a message without a
    /// link is found although the others have one); none when it is not a send (an Expo
    /// getReceipts request is none), or was rejected and ``Options/includeRejected`` is off.
    public func reports(for record: ExchangeRecord) -> [DeepLinkNotificationReport] {
        guard let platform = record.platform.pushService, platform == .expo, let messages = ExpoRecordedMessages(record: record) else {
            return check(record).map { [$0] } ?? []
        }
        if NotificationPayloadFacts.isExpoReceiptsRequest(record) { return [] }
        if !options.includeRejected && record.response.status != 200 { return [] }
        var linksByMessage: [Int: [FoundDeepLink]] = [:]
        for link in extractor.links(in: record) {
            guard let index = Self.messageIndex(ofLocation: link.location) else { continue }
            linksByMessage[index, default: []].append(link)
        }
        return messages.notifications.enumerated().map { index, notification in
            let result = check(links: linksByMessage[index] ?? [], isSilent: notification.facts.isSilent)
            return DeepLinkNotificationReport(notification: notification.reference, links: result.links, problems: result.problems)
        }
    }

    /// The message a link location such as `$[3].data.url` is in.
    static func messageIndex(ofLocation location: String) -> Int? {
        guard location.hasPrefix("$["), let close = location.firstIndex(of: "]") else { return nil }
        return Int(location[location.index(location.startIndex, offsetBy: 2)..<close])
    }

    /// The check of one record as one notification (an Expo request's messages together;
    /// ``reports(for:)`` checks them one by one); `nil` when it is not an APNs/FCM/Expo send
    /// (an Expo getReceipts request is none), or was rejected and ``Options/includeRejected``
    /// is off.
    public func check(_ record: ExchangeRecord) -> DeepLinkNotificationReport? {
        guard let platform = record.platform.pushService, !NotificationPayloadFacts.isExpoReceiptsRequest(record) else { return nil }
        if !options.includeRejected && (record.response.status != 200 || NotificationPayloadFacts.isValidateOnly(record)) {
            return nil
        }
        let facts = NotificationPayloadFacts(record: record, platform: platform)
        let result = check(links: extractor.links(in: record), isSilent: facts.isSilent)
        return DeepLinkNotificationReport(
            notification: NotificationReference(record: record), links: result.links, problems: result.problems)
    }

    /// Checks a payload that was not recorded (an APNs payload or FCM `SendMessageRequest` body).
    public func check(payload: JSONValue, platform: Platform) -> (links: [CheckedDeepLink], problems: [DeepLinkProblem]) {
        let facts = NotificationPayloadFacts(payload: payload, platform: platform)
        return check(links: extractor.links(inPayload: payload, platform: platform), isSilent: facts.isSilent)
    }

    private func check(links found: [FoundDeepLink], isSilent: Bool) -> (links: [CheckedDeepLink], problems: [DeepLinkProblem]) {
        var links: [CheckedDeepLink] = []
        var problems: [DeepLinkProblem] = []
        if found.isEmpty && options.requireLink && (!isSilent || options.requireLinkOnSilent) {
            let count = extractor.locations.count
            problems.append(DeepLinkProblem(kind: .noLink, message: "no deep link at any of the \(count) link locations"))
        }
        for link in found {
            let match: DeepLinkMatch =
                link.isString ? routes.resolve(link.link) : .malformed(reason: "expected a string, found \(link.link)")
            links.append(CheckedDeepLink(link: link.link, location: link.location, match: match))
            switch match {
            case .routed(let resolution):
                for name in resolution.parameters.keys.sorted() where resolution.parameters[name]!.isEmpty {
                    problems.append(
                        DeepLinkProblem(
                            kind: .emptyParameter,
                            link: link.link,
                            location: link.location,
                            message: "parameter {\(name)} of route \(resolution.route) is empty"
                        )
                    )
                }
            case .external:
                break
            case .noRoute where routes.isExternal(link.link), .fallback where routes.isExternal(link.link):
                problems.append(
                    DeepLinkProblem(
                        kind: .externalNotAllowed, link: link.link, location: link.location,
                        message: "an external link that is not on the externalURLs allow-list"))
            case .fallback(let screen):
                if options.fallbackIsProblem {
                    problems.append(
                        DeepLinkProblem(
                            kind: .fallback,
                            link: link.link,
                            location: link.location,
                            message: "matches no route; the app falls back to \(screen)"
                        )
                    )
                }
            case .noRoute:
                problems.append(DeepLinkProblem(kind: .noRoute, link: link.link, location: link.location, message: "matches no route"))
            case .malformed(let reason):
                problems.append(DeepLinkProblem(kind: .malformedURL, link: link.link, location: link.location, message: reason))
            }
        }
        return (links, problems)
    }
}

extension DeepLinkChecker.Options: Codable {
    enum CodingKeys: String, CodingKey { case requireLink, requireLinkOnSilent, fallbackIsProblem, includeRejected }

    /// Every member is optional and defaults as in ``init(requireLink:requireLinkOnSilent:fallbackIsProblem:includeRejected:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Self()
        self.init(
            requireLink: try container.decodeIfPresent(Bool.self, forKey: .requireLink) ?? defaults.requireLink,
            requireLinkOnSilent: try container.decodeIfPresent(Bool.self, forKey: .requireLinkOnSilent) ?? defaults.requireLinkOnSilent,
            fallbackIsProblem: try container.decodeIfPresent(Bool.self, forKey: .fallbackIsProblem) ?? defaults.fallbackIsProblem,
            includeRejected: try container.decodeIfPresent(Bool.self, forKey: .includeRejected) ?? defaults.includeRejected
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(requireLink, forKey: .requireLink)
        try container.encode(requireLinkOnSilent, forKey: .requireLinkOnSilent)
        try container.encode(fallbackIsProblem, forKey: .fallbackIsProblem)
        try container.encode(includeRejected, forKey: .includeRejected)
    }
}
