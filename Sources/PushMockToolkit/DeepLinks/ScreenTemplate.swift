/// The screen a route opens, with the pattern's parameters filled in: `/protocols/{id}/log`.
///
/// Optional groups (`/protocols/{id}[/log]`) correspond by position to the pattern's groups: the
/// screen's *n*-th group is written when the pattern's *n*-th group was present in the link.
/// Values are inserted as decoded from the link, without re-encoding.
struct ScreenTemplate: Sendable, Hashable {
    enum Part: Sendable, Hashable {
        case text(String)
        case parameter(String)
    }

    struct Section: Sendable, Hashable {
        /// `nil` for text outside optional groups.
        var group: Int?
        var parts: [Part]
    }

    let text: String
    let sections: [Section]

    init(_ text: String, for pattern: RoutePattern) throws(DeepLinkError) {
        func fail(_ message: String) -> DeepLinkError {
            DeepLinkError(.invalidScreen, "\"\(text)\": \(message)")
        }
        let groups: OptionalGroups
        var sections: [Section] = []
        do {
            groups = try OptionalGroups(text)
            var groupIndex = 0
            for piece in groups.pieces {
                switch piece {
                case .fixed(let fixed):
                    sections.append(Section(group: nil, parts: try Self.parts(fixed)))
                case .group(let content):
                    sections.append(Section(group: groupIndex, parts: try Self.parts(content)))
                    groupIndex += 1
                }
            }
        } catch {
            throw fail(error.description)
        }
        if groups.count != 0 && groups.count != pattern.optionalGroupCount {
            throw fail(
                "has \(groups.count) optional group(s) but the pattern has \(pattern.optionalGroupCount); they correspond by position"
            )
        }
        for alternative in pattern.alternatives {
            for section in sections where section.group.map({ alternative.presentGroups[$0] }) ?? true {
                for case .parameter(let name) in section.parts where !alternative.placeholders.contains(name) {
                    throw fail("uses {\(name)}, which the pattern alternative \"\(alternative.text)\" does not capture")
                }
            }
        }
        self.text = text
        self.sections = sections
    }

    func render(_ parameters: [String: String], presentGroups: [Bool]) -> String {
        var result = ""
        for section in sections {
            if let group = section.group, !(presentGroups.indices.contains(group) && presentGroups[group]) { continue }
            for part in section.parts {
                switch part {
                case .text(let text): result += text
                case .parameter(let name): result += parameters[name] ?? ""
                }
            }
        }
        return result
    }

    private static func parts(_ text: String) throws(PatternSyntaxError) -> [Part] {
        var parts: [Part] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            if rest[..<open].contains("}") { throw PatternSyntaxError("\"}\" without \"{\"") }
            if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else { throw PatternSyntaxError("unterminated \"{\"") }
            let name = rest[rest.index(after: open)..<close]
            guard PlaceholderName.isValid(name) else { throw PatternSyntaxError("invalid parameter name \"{\(name)}\"") }
            parts.append(.parameter(String(name)))
            rest = rest[rest.index(after: close)...]
        }
        if rest.contains("}") { throw PatternSyntaxError("\"}\" without \"{\"") }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        return parts
    }
}
