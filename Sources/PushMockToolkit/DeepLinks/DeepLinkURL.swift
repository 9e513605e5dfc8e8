/// A link from a payload, taken apart for route matching.
///
/// Written by hand rather than with `URLComponents` because what counts as malformed must be the
/// same on every platform and Foundation version, and because the messages must say *why* a
/// link is malformed (an unfilled `{{ id }}`, a space, a bad percent-escape).
///
/// * `http`/`https` links: the authority is the host (lower-cased, user info dropped, port
///   kept), the path gives the segments.
/// * Any other scheme (`loop://protocols/p1/log`): there is no host; the authority is the first
///   segment, so `loop://protocols/p1/log`, `loop:///protocols/p1/log` and `loop:protocols/p1/log`
///   all give `protocols`, `p1`, `log`.
/// * One trailing `/` is ignored; empty segments inside the path are kept (and will capture
///   empty parameters).
/// * Segments and query names/values are percent-decoded after splitting, so `%2F` stays inside
///   its segment; `+` is kept as is (RFC 3986, as iOS's `URLComponents.queryItems` does).
struct DeepLinkURL: Sendable, Hashable {
    struct QueryItem: Sendable, Hashable {
        var name: String
        var value: String
    }

    /// Lower-cased.
    var scheme: String
    /// For `http` and `https` only.
    var host: String?
    var segments: [String]
    var query: [QueryItem]

    static let webSchemes: Set<String> = ["http", "https"]

    /// The first value of the query parameter `name`.
    func queryValue(_ name: String) -> String? {
        query.first { $0.name.utf8.elementsEqual(name.utf8) }?.value
    }

    /// Parses `link`, or says why it is not a usable URL.
    static func parse(_ link: String) -> Result<DeepLinkURL, MalformedReason> {
        if link.isEmpty { return .failure("empty link") }
        if link.contains("{{") || link.contains("}}") {
            return .failure("contains an unfilled template placeholder")
        }
        for (offset, scalar) in link.unicodeScalars.enumerated() {
            if !scalar.isASCII {
                return .failure("contains the non-ASCII character \"\(scalar)\" at offset \(offset); percent-encode it")
            }
            if scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F {
                return .failure("contains whitespace or a control character at offset \(offset)")
            }
            if !allowedCharacters.contains(UInt8(scalar.value)) {
                return .failure("contains \"\(scalar)\" at offset \(offset), which must be percent-encoded")
            }
        }
        if link.hasPrefix("/") { return .failure("relative link without a scheme") }
        guard let colon = link.firstIndex(of: ":"), isScheme(link[..<colon]) else {
            return .failure("no scheme (expected something like loop://… or https://…)")
        }
        let scheme = link[..<colon].lowercased()
        var rest = link[link.index(after: colon)...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var queryText: Substring?
        if let question = rest.firstIndex(of: "?") {
            queryText = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        var authority: Substring?
        if rest.hasPrefix("//") {
            let afterSlashes = rest.dropFirst(2)
            let end = afterSlashes.firstIndex(of: "/") ?? afterSlashes.endIndex
            authority = afterSlashes[..<end]
            rest = afterSlashes[end...]
        }

        var segments: [String] = []
        var host: String?
        if webSchemes.contains(scheme) {
            guard var hostText = authority, !hostText.isEmpty else {
                return .failure("\(scheme) link without a host")
            }
            if let at = hostText.lastIndex(of: "@") { hostText = hostText[hostText.index(after: at)...] }
            host = hostText.lowercased()
        } else if let authority, !authority.isEmpty {
            guard let decoded = percentDecoded(authority) else { return .failure(badEscape) }
            segments.append(decoded)
        }
        for piece in pathSegments(rest) {
            guard let decoded = percentDecoded(piece) else { return .failure(badEscape) }
            segments.append(decoded)
        }

        var query: [QueryItem] = []
        for piece in (queryText ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = piece.firstIndex(of: "=") {
                name = piece[..<equals]
                value = piece[piece.index(after: equals)...]
            } else {
                name = piece
                value = ""
            }
            guard let decodedName = percentDecoded(name), let decodedValue = percentDecoded(value) else {
                return .failure(badEscape)
            }
            query.append(QueryItem(name: decodedName, value: decodedValue))
        }
        return .success(DeepLinkURL(scheme: scheme, host: host, segments: segments, query: query))
    }

    /// Why a link is malformed, in words.
    struct MalformedReason: Error, Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
        var description: String
        init(stringLiteral value: String) { description = value }
        init(_ description: String) { self.description = description }
    }

    private static let badEscape: MalformedReason =
        "contains an invalid percent-escape (\"%\" must be followed by two hex digits and encode UTF-8)"

    /// The path split at `/`: one leading and one trailing slash are ignored.
    static func pathSegments(_ path: Substring) -> [Substring] {
        var path = path
        if path.hasPrefix("/") { path = path.dropFirst() }
        if path.hasSuffix("/") { path = path.dropLast() }
        if path.isEmpty { return [] }
        return path.split(separator: "/", omittingEmptySubsequences: false)
    }

    /// RFC 3986 scheme: a letter, then letters, digits, `+`, `-`, `.`.
    static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "+-.".unicodeScalars.contains(scalar))
        }
    }

    /// Decodes `%XX` escapes; `nil` for a broken escape or bytes that are not UTF-8.
    static func percentDecoded(_ text: some StringProtocol) -> String? {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.popFirst().flatMap(hexValue), let low = iterator.popFirst().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Unreserved, reserved and `%` (RFC 3986 §2): everything else must be percent-encoded.
    private static let allowedCharacters: Set<UInt8> = {
        var set = Set<UInt8>()
        for range in [UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9")] {
            set.formUnion(range)
        }
        set.formUnion("-._~:/?#[]@!$&'()*+,;=%".utf8)
        return set
    }()
}
