#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether rendered diffs use ANSI colours.
///
/// Colour is always an explicit choice of the caller (the diff functions take a flag);
/// ``automatic(environment:)`` is the usual way to make it for terminal output.
public struct TextStyle: Sendable, Hashable {
    /// Whether ANSI escape sequences are written.
    public var usesColor: Bool

    /// Creates a style.
    public init(usesColor: Bool) {
        self.usesColor = usesColor
    }

    /// No escape sequences: files, logs, test failure messages.
    public static let plain = TextStyle(usesColor: false)
    /// ANSI colours.
    public static let colored = TextStyle(usesColor: true)

    /// Colour when standard error is a terminal, unless `NO_COLOR` is set (https://no-color.org)
    /// or `TERM` is `dumb`; `FORCE_COLOR` (non-empty, not `0`) turns it on regardless.
    public static func automatic(environment: [String: String]) -> TextStyle {
        if let force = environment["FORCE_COLOR"], !force.isEmpty, force != "0" { return .colored }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .plain }
        if environment["TERM"] == "dumb" { return .plain }
        return TextStyle(usesColor: isatty(STDERR_FILENO) == 1)
    }

    enum Role {
        case removed, added, changed, moved, hunkHeader, fileHeader, note
    }

    func apply(_ role: Role, to text: String) -> String {
        guard usesColor, !text.isEmpty else { return text }
        let code: String
        switch role {
        case .removed: code = "31"
        case .added: code = "32"
        case .changed: code = "33"
        case .moved: code = "35"
        case .hunkHeader: code = "36"
        case .fileHeader: code = "1"
        case .note: code = "2"
        }
        return "\u{1B}[\(code)m" + text + "\u{1B}[0m"
    }
}
