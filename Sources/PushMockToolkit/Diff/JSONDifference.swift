public import PushMockJSON

/// One difference between an *expected* and an *actual* JSON document, located by path.
///
/// Paths are kept as steps so both sides can be addressed: inside arrays the same element may
/// sit at different indices (`[2→3]` when an element was inserted before it).
public struct JSONDifference: Sendable, Hashable, CustomStringConvertible {
    /// One step from the root to the difference.
    public enum Step: Sendable, Hashable {
        /// An object member.
        case key(String)
        /// An array element: its index in the expected and in the actual document (`nil` on the
        /// side where the element does not exist).
        case index(expected: Int?, actual: Int?)
    }

    /// What differs.
    public enum Kind: Sendable, Hashable {
        /// Present on both sides with different values (or kinds).
        case changed(expected: JSONValue, actual: JSONValue)
        /// Only in the expected document.
        case removed(JSONValue)
        /// Only in the actual document.
        case added(JSONValue)
        /// An array element present on both sides, unchanged, at another position (the last
        /// step holds both indices).
        case moved(JSONValue)
    }

    /// From the root to the difference; empty for the root itself.
    public var steps: [Step]
    public var kind: Kind

    public init(steps: [Step], kind: Kind) {
        self.steps = steps
        self.kind = kind
    }

    /// The location in the expected document, or `nil` for ``Kind/added(_:)``.
    public var expectedPath: JSONPath? { path(expectedSide: true) }

    /// The location in the actual document, or `nil` for ``Kind/removed(_:)``.
    public var actualPath: JSONPath? { path(expectedSide: false) }

    /// A readable path without the leading `$`: `[2].payload.aps.alert.title`,
    /// `headers['x y']`, `[2→3].path` when the element moved; `$` for the root.
    public var pathDescription: String {
        Self.describe(steps)
    }

    /// The difference as one line, e.g.
    /// `~ [2].payload.aps.alert.title: "Time for your BPC-157" ≠ "Time for your {{compound}}"`.
    public var description: String {
        rendered(style: .plain)
    }

    /// The difference as one line; values longer than `valueLimit` characters are shortened.
    public func rendered(style: TextStyle, valueLimit: Int = 120) -> String {
        let path = pathDescription
        func value(_ json: JSONValue) -> String { Self.abbreviated(json, limit: valueLimit) }
        switch kind {
        case .changed(let expected, let actual):
            return style.apply(.changed, to: "~ \(path): \(value(expected)) ≠ \(value(actual))")
        case .removed(let expected):
            return style.apply(.removed, to: "- \(path): \(value(expected))")
        case .added(let actual):
            return style.apply(.added, to: "+ \(path): \(value(actual))")
        case .moved(let element):
            return style.apply(.moved, to: "↕ \(path): moved \(value(element))")
        }
    }

    // MARK: Paths

    private func path(expectedSide: Bool) -> JSONPath? {
        var components: [JSONPath.Component] = []
        for step in steps {
            switch step {
            case .key(let name):
                components.append(.key(name))
            case .index(let expected, let actual):
                guard let index = expectedSide ? expected : actual else { return nil }
                components.append(.index(index))
            }
        }
        return JSONPath(components: components)
    }

    static func describe(_ steps: [Step]) -> String {
        guard !steps.isEmpty else { return "$" }
        var text = ""
        for step in steps {
            switch step {
            case .key(let name):
                if isPlainName(name) {
                    if !text.isEmpty { text += "." }
                    text += name
                } else {
                    text += "['"
                    for character in name {
                        if character == "\\" || character == "'" { text += "\\" }
                        text.append(character)
                    }
                    text += "']"
                }
            case .index(let expected, let actual):
                switch (expected, actual) {
                case (let expected?, let actual?) where expected != actual: text += "[\(expected)→\(actual)]"
                case (let index?, _), (nil, let index?): text += "[\(index)]"
                case (nil, nil): text += "[?]"
                }
            }
        }
        return text
    }

    /// Names that read unambiguously after a dot (and parse as a JSONPath dotted name).
    private static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy { scalar in
                ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "_" || scalar == "-" || scalar == "$"
            }
    }

    /// Compact JSON, cut at `limit` characters with `…`.
    static func abbreviated(_ value: JSONValue, limit: Int) -> String {
        let text = value.compactString
        guard text.count > limit else { return text }
        return String(text.prefix(max(1, limit - 1))) + "…"
    }
}

extension JSONDifference {
    /// The difference for machine-readable reports (`pushmock golden verify --json`):
    /// `{"kind": "changed", "path": "[2].payload.aps.alert.title", "expected": …, "actual": …}`,
    /// with `expected` absent for an addition and `actual` absent for a removal.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        switch kind {
        case .changed(let expected, let actual):
            object["kind"] = "changed"
            object["path"] = .string(pathDescription)
            object["expected"] = expected
            object["actual"] = actual
        case .removed(let expected):
            object["kind"] = "removed"
            object["path"] = .string(pathDescription)
            object["expected"] = expected
        case .added(let actual):
            object["kind"] = "added"
            object["path"] = .string(pathDescription)
            object["actual"] = actual
        case .moved(let element):
            object["kind"] = "moved"
            object["path"] = .string(pathDescription)
            object["expected"] = element
            object["actual"] = element
        }
        return .object(object)
    }
}
