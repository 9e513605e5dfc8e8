/// Text from a server, made safe to print on a terminal.
///
/// A server's `reason`, `error_description` or Expo `message` went to standard output as sent:
/// escape sequences could recolour or rewrite what the terminal showed (a forged "accepted"
/// line), carriage returns could overwrite a line, and a 2 MB reason was printed twice.
enum TerminalText {
    /// The most characters of one printed line; the rest is counted, not shown.
    static let lineLimit = 1000

    /// `text` with control characters (C0, DEL, C1) and bidirectional overrides written as
    /// `\u{…}` escapes, cut at ``lineLimit`` characters.
    static func line(_ text: String) -> String {
        var result = ""
        var shown = 0
        var dropped = 0
        for scalar in text.unicodeScalars {
            guard shown < lineLimit else {
                dropped += 1
                continue
            }
            if isUnsafe(scalar) {
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
            shown += 1
        }
        return dropped == 0 ? result : result + "… (\(dropped) more characters)"
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        // Bidirectional embeddings, overrides and isolates: they reorder what follows on screen.
        case 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
