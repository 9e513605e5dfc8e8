/// Shell-style patterns (fault matching, queries): `*` matches any run of characters, `?` one
/// character, everything else itself. `com.example.*`, `*:APA91b*`, `00fc*`.
public struct Glob: Sendable, Hashable, Codable, CustomStringConvertible {
    public let pattern: String
    private let characters: [Character]

    public init(_ pattern: String) {
        self.pattern = pattern
        self.characters = Array(pattern)
    }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(pattern)
    }

    public var description: String { pattern }

    /// Whether `text` matches the whole pattern.
    public func matches(_ text: String) -> Bool {
        if !pattern.contains("*") && !pattern.contains("?") { return pattern == text }
        let text = Array(text)
        // Iterative matching with backtracking to the last star: linear in practice.
        var p = 0
        var t = 0
        var star: Int?
        var match = 0
        while t < text.count {
            if p < characters.count, characters[p] == "?" || characters[p] == text[t] {
                p += 1
                t += 1
            } else if p < characters.count, characters[p] == "*" {
                star = p
                match = t
                p += 1
            } else if let star {
                p = star + 1
                match += 1
                t = match
            } else {
                return false
            }
        }
        while p < characters.count, characters[p] == "*" { p += 1 }
        return p == characters.count
    }

    public static func == (lhs: Glob, rhs: Glob) -> Bool { lhs.pattern == rhs.pattern }
    public func hash(into hasher: inout Hasher) { hasher.combine(pattern) }
}
