/// URI references as JSON Schema uses them for `$id` and `$ref`: resolved against a base by
/// RFC 3986 §5.2, split into the resource and the fragment. A schema without `$id` has the
/// empty base, against which relative references stay relative (and so only meet documents
/// registered under that same relative name).
enum SchemaURI {
    struct Parts {
        var scheme: String?
        var authority: String?
        var path: String
        var query: String?
        var fragment: String?

        init(_ text: String) {
            var rest = Substring(text)
            if let hash = rest.firstIndex(of: "#") {
                fragment = String(rest[rest.index(after: hash)...])
                rest = rest[..<hash]
            }
            if let question = rest.firstIndex(of: "?") {
                query = String(rest[rest.index(after: question)...])
                rest = rest[..<question]
            }
            if let colon = rest.firstIndex(of: ":"), let first = rest.first, first.isLetter,
                rest[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }), !rest[..<colon].contains("/")
            {
                scheme = String(rest[..<colon])
                rest = rest[rest.index(after: colon)...]
            }
            if rest.hasPrefix("//") {
                let afterSlashes = rest.dropFirst(2)
                let end = afterSlashes.firstIndex(of: "/") ?? afterSlashes.endIndex
                authority = String(afterSlashes[..<end])
                rest = afterSlashes[end...]
            }
            path = String(rest)
        }

        var text: String {
            var result = ""
            if let scheme { result += scheme + ":" }
            if let authority { result += "//" + authority }
            result += path
            if let query { result += "?" + query }
            if let fragment { result += "#" + fragment }
            return result
        }
    }

    /// `reference` resolved against `base` (RFC 3986 §5.2.2).
    static func resolve(_ reference: String, against base: String) -> String {
        let ref = Parts(reference)
        if ref.scheme != nil {
            var target = ref
            target.path = removeDotSegments(ref.path)
            return target.text
        }
        let baseParts = Parts(base)
        var target = ref
        target.scheme = baseParts.scheme
        if ref.authority != nil {
            target.path = removeDotSegments(ref.path)
        } else {
            target.authority = baseParts.authority
            if ref.path.isEmpty {
                target.path = baseParts.path
                target.query = ref.query ?? baseParts.query
            } else if ref.path.hasPrefix("/") {
                target.path = removeDotSegments(ref.path)
            } else {
                let merged: String
                if baseParts.authority != nil && baseParts.path.isEmpty {
                    merged = "/" + ref.path
                } else if let slash = baseParts.path.lastIndex(of: "/") {
                    merged = baseParts.path[...slash] + ref.path
                } else {
                    merged = ref.path
                }
                target.path = removeDotSegments(merged)
            }
        }
        return target.text
    }

    /// The resource part and the (percent-decoded) fragment; `nil` fragment when there is none.
    static func split(_ uri: String) -> (resource: String, fragment: String?) {
        guard let hash = uri.firstIndex(of: "#") else { return (uri, nil) }
        let fragment = String(uri[uri.index(after: hash)...])
        return (String(uri[..<hash]), percentDecoded(fragment))
    }

    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let value = UInt8(String(decoding: utf8[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func removeDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            switch segment {
            case ".":
                if last { output.append("") }
            case "..":
                if output.count > 1 || (output.count == 1 && !output[0].isEmpty) { output.removeLast() }
                if last { output.append("") }
            default:
                output.append(segment)
            }
        }
        return output.joined(separator: "/")
    }
}
