/// A route pattern, parsed: `loop://protocols/{id}[/log]`, `loop://chat?context={ctx}`,
/// `https://loop.example/labs/{id}`, or an app path `/protocols/{id}` (matched under the table's
/// scheme and universal-link hosts).
///
/// Optional groups (`[…]`, not nested) are expanded into alternatives, every group present
/// first, so a pattern with *n* groups has 2ⁿ alternatives (at most 6 groups).
struct RoutePattern: Sendable, Hashable {
    static let maximumOptionalGroups = 6

    let text: String
    /// Every combination of optional groups, the fullest first.
    let alternatives: [Alternative]
    let optionalGroupCount: Int

    /// One concrete shape of a pattern: no optional groups left.
    struct Alternative: Sendable, Hashable {
        enum Target: Sendable, Hashable {
            /// `loop://…`: a custom scheme; the authority is the first segment.
            case custom(scheme: String)
            /// `https://host/…`: scheme and host must both match.
            case web(scheme: String, host: String)
            /// `/…`: under the table's scheme, or `https` on one of its universal-link hosts.
            case appPath
        }

        struct QueryRequirement: Sendable, Hashable {
            var name: String
            /// `nil`: the parameter must be present with any value (`?debug`).
            var value: PatternTemplate?
        }

        /// The alternative written out, e.g. `loop://protocols/{id}/log`.
        let text: String
        let target: Target
        let segments: [PatternTemplate]
        let query: [QueryRequirement]
        /// Which optional groups this alternative includes.
        let presentGroups: [Bool]
        /// Placeholder names, in order.
        let placeholders: [String]

        /// How specific the alternative is, compared lexicographically (larger wins): literal
        /// segments, partly literal segments (`lab_{id}`), literal query values, partly literal
        /// query values, captured query values, presence-only query parameters.
        var specificity: [Int] {
            [
                segments.count { $0.placeholder == nil },
                segments.count { $0.placeholder != nil && !($0.prefix.isEmpty && $0.suffix.isEmpty) },
                query.count { $0.value?.placeholder == nil && $0.value != nil },
                query.count { ($0.value.map { $0.placeholder != nil && !($0.prefix.isEmpty && $0.suffix.isEmpty) }) ?? false },
                query.count { $0.value?.placeholder != nil },
                query.count { $0.value == nil },
            ]
        }

        /// The captured parameters if `link` has this shape.
        func match(_ link: DeepLinkURL, scheme appScheme: String?, hosts: [String]) -> [String: String]? {
            switch target {
            case .custom(let scheme):
                guard link.host == nil, link.scheme == scheme else { return nil }
            case .web(let scheme, let host):
                guard link.scheme == scheme, link.host == host else { return nil }
            case .appPath:
                if let host = link.host {
                    guard link.scheme == "https", hosts.contains(host) else { return nil }
                } else {
                    guard let appScheme, link.scheme == appScheme else { return nil }
                }
            }
            guard link.segments.count == segments.count else { return nil }
            var parameters: [String: String] = [:]
            for (template, segment) in zip(segments, link.segments) {
                guard let captured = template.match(segment) else { return nil }
                if let name = template.placeholder { parameters[name] = captured }
            }
            for requirement in query {
                guard let value = link.queryValue(requirement.name) else { return nil }
                guard let template = requirement.value else { continue }
                guard let captured = template.match(value) else { return nil }
                if let name = template.placeholder { parameters[name] = captured }
            }
            return parameters
        }
    }

    init(_ text: String) throws(DeepLinkError) {
        func fail(_ message: String) -> DeepLinkError {
            DeepLinkError(.invalidPattern, "\"\(text)\": \(message)")
        }
        let groups: OptionalGroups
        do {
            groups = try OptionalGroups(text)
        } catch {
            throw fail(error.description)
        }
        guard groups.count <= Self.maximumOptionalGroups else {
            throw fail("at most \(Self.maximumOptionalGroups) optional groups are supported")
        }
        var alternatives: [Alternative] = []
        for presence in groups.presenceCombinations {
            let expanded = groups.text(including: presence)
            do {
                alternatives.append(try Self.parseAlternative(expanded, presentGroups: presence))
            } catch {
                let which = groups.count > 0 ? " (in the alternative \"\(expanded)\")" : ""
                throw fail("\(error.description)\(which)")
            }
        }
        self.text = text
        self.alternatives = alternatives
        self.optionalGroupCount = groups.count
    }

    var usesAppPath: Bool { alternatives.contains { $0.target == .appPath } }

    private static func parseAlternative(_ text: String, presentGroups: [Bool]) throws(PatternSyntaxError) -> Alternative {
        if text.contains("#") { throw PatternSyntaxError("fragments (#…) are not supported in patterns") }
        if let space = text.unicodeScalars.first(where: { $0.properties.isWhitespace }) {
            throw PatternSyntaxError("contains whitespace (\"\(space.escaped(asASCII: true))\")")
        }
        var rest = Substring(text)
        var queryText: Substring?
        if let question = rest.firstIndex(of: "?") {
            queryText = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }

        let target: Alternative.Target
        var segmentTexts: [Substring] = []
        if rest.hasPrefix("/") {
            target = .appPath
        } else {
            guard let colon = rest.firstIndex(of: ":"), DeepLinkURL.isScheme(rest[..<colon]) else {
                throw PatternSyntaxError("expected a scheme (loop://…, https://…) or an app path starting with \"/\"")
            }
            let scheme = rest[..<colon].lowercased()
            rest = rest[rest.index(after: colon)...]
            var authority: Substring?
            if rest.hasPrefix("//") {
                let afterSlashes = rest.dropFirst(2)
                let end = afterSlashes.firstIndex(of: "/") ?? afterSlashes.endIndex
                authority = afterSlashes[..<end]
                rest = afterSlashes[end...]
            }
            if DeepLinkURL.webSchemes.contains(scheme) {
                guard let host = authority, !host.isEmpty else { throw PatternSyntaxError("\(scheme) pattern without a host") }
                if host.contains("{") { throw PatternSyntaxError("the host cannot contain a parameter") }
                target = .web(scheme: scheme, host: host.lowercased())
            } else {
                target = .custom(scheme: scheme)
                if let authority, !authority.isEmpty { segmentTexts.append(authority) }
            }
        }
        segmentTexts += DeepLinkURL.pathSegments(rest)

        var segments: [PatternTemplate] = []
        for piece in segmentTexts {
            if piece.isEmpty { throw PatternSyntaxError("empty path segment (\"//\")") }
            segments.append(try PatternTemplate(piece))
        }
        var query: [Alternative.QueryRequirement] = []
        for piece in (queryText ?? "").split(separator: "&", omittingEmptySubsequences: false) where !(queryText ?? "").isEmpty {
            if piece.isEmpty { throw PatternSyntaxError("empty query parameter (\"&&\")") }
            let nameText = piece.firstIndex(of: "=").map { piece[..<$0] } ?? piece
            if nameText.contains("{") { throw PatternSyntaxError("query parameter names cannot be parameters") }
            guard let name = DeepLinkURL.percentDecoded(nameText), !name.isEmpty else {
                throw PatternSyntaxError("invalid query parameter name \"\(nameText)\"")
            }
            if query.contains(where: { $0.name == name }) {
                throw PatternSyntaxError("the query parameter \"\(name)\" appears twice")
            }
            var value: PatternTemplate?
            if let equals = piece.firstIndex(of: "=") {
                value = try PatternTemplate(piece[piece.index(after: equals)...])
            }
            query.append(Alternative.QueryRequirement(name: name, value: value))
        }

        var placeholders: [String] = []
        for name in segments.compactMap(\.placeholder) + query.compactMap(\.value?.placeholder) {
            if placeholders.contains(name) { throw PatternSyntaxError("the parameter {\(name)} appears twice") }
            placeholders.append(name)
        }
        return Alternative(
            text: text,
            target: target,
            segments: segments,
            query: query,
            presentGroups: presentGroups,
            placeholders: placeholders
        )
    }
}

/// A pattern syntax problem, in words (wrapped into ``DeepLinkError`` with the pattern).
struct PatternSyntaxError: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One path segment or query value of a pattern: literal text with at most one `{name}`
/// placeholder, e.g. `log`, `{id}`, `lab_{id}`. Literal parts are percent-decoded, like links.
struct PatternTemplate: Sendable, Hashable {
    var prefix: String
    var placeholder: String?
    var suffix: String

    init(_ text: Substring) throws(PatternSyntaxError) {
        guard let open = text.firstIndex(of: "{") else {
            if text.contains("}") { throw PatternSyntaxError("\"}\" without \"{\" in \"\(text)\"") }
            prefix = try Self.decoded(text)
            placeholder = nil
            suffix = ""
            return
        }
        guard let close = text[open...].firstIndex(of: "}") else {
            throw PatternSyntaxError("unterminated \"{\" in \"\(text)\"")
        }
        let name = text[text.index(after: open)..<close]
        guard PlaceholderName.isValid(name) else {
            throw PatternSyntaxError("invalid parameter name \"{\(name)}\" (use letters, digits, \"_\", \"-\" and \".\")")
        }
        let after = text[text.index(after: close)...]
        if after.contains("{") {
            throw PatternSyntaxError("only one parameter per path segment or query value (\"\(text)\")")
        }
        if after.contains("}") || text[..<open].contains("}") {
            throw PatternSyntaxError("\"}\" without \"{\" in \"\(text)\"")
        }
        prefix = try Self.decoded(text[..<open])
        placeholder = String(name)
        suffix = try Self.decoded(after)
    }

    /// The captured value (`""` for a literal) when `text` fits; `nil` otherwise. Compared
    /// byte-for-byte, as links are.
    func match(_ text: String) -> String? {
        guard placeholder != nil else {
            return text.utf8.elementsEqual(prefix.utf8) ? "" : nil
        }
        let bytes = Array(text.utf8)
        let prefixBytes = Array(prefix.utf8)
        let suffixBytes = Array(suffix.utf8)
        guard bytes.count >= prefixBytes.count + suffixBytes.count,
            bytes.starts(with: prefixBytes),
            bytes.suffix(suffixBytes.count).elementsEqual(suffixBytes)
        else { return nil }
        return String(decoding: bytes[prefixBytes.count..<(bytes.count - suffixBytes.count)], as: UTF8.self)
    }

    private static func decoded(_ text: Substring) throws(PatternSyntaxError) -> String {
        guard let decoded = DeepLinkURL.percentDecoded(text) else {
            throw PatternSyntaxError("invalid percent-escape in \"\(text)\"")
        }
        return decoded
    }
}

enum PlaceholderName {
    static func isValid(_ name: some StringProtocol) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-.".unicodeScalars.contains(scalar))
            }
    }
}

/// The `[…]` optional groups of a pattern or screen template (not nested).
struct OptionalGroups: Sendable {
    enum Piece: Sendable {
        case fixed(String)
        case group(String)
    }

    let pieces: [Piece]
    var count: Int { pieces.count { if case .group = $0 { true } else { false } } }

    init(_ text: String) throws(PatternSyntaxError) {
        var pieces: [Piece] = []
        var current = ""
        var inGroup = false
        for character in text {
            switch character {
            case "[":
                if inGroup { throw PatternSyntaxError("nested optional groups are not supported") }
                if !current.isEmpty { pieces.append(.fixed(current)) }
                current = ""
                inGroup = true
            case "]":
                guard inGroup else { throw PatternSyntaxError("\"]\" without \"[\"") }
                if current.isEmpty { throw PatternSyntaxError("empty optional group \"[]\"") }
                pieces.append(.group(current))
                current = ""
                inGroup = false
            default:
                current.append(character)
            }
        }
        if inGroup { throw PatternSyntaxError("unterminated optional group \"[\"") }
        if !current.isEmpty { pieces.append(.fixed(current)) }
        self.pieces = pieces
    }

    /// Every presence combination, the ones with more groups present first.
    var presenceCombinations: [[Bool]] {
        let count = self.count
        let masks = (0..<(1 << count)).sorted { left, right in
            (left.nonzeroBitCount, left) < (right.nonzeroBitCount, right)
        }
        // A set bit means "left out", so mask 0 (every group present) comes first.
        return masks.map { mask in (0..<count).map { mask & (1 << $0) == 0 } }
    }

    /// The text with the given groups included (their brackets removed) and the others left out.
    func text(including presence: [Bool]) -> String {
        var text = ""
        var groupIndex = 0
        for piece in pieces {
            switch piece {
            case .fixed(let fixed):
                text += fixed
            case .group(let content):
                if presence[groupIndex] { text += content }
                groupIndex += 1
            }
        }
        return text
    }
}
