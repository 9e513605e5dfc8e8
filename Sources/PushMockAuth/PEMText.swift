import Foundation

/// A forgiving reader for PEM text as people actually hand it over.
///
/// swift-asn1's and swift-crypto's PEM parsers insist on exactly 64-character lines and a single
/// document, which rejects keys and certificates that work everywhere else: `openssl ecparam
/// -genkey` output (an `EC PARAMETERS` block before the key), `openssl pkcs12` exports (`Bag
/// Attributes` text before each block), 76-column Java output, keys squashed onto one line or
/// carrying literal `\n` escapes after a trip through an environment variable. This reader finds
/// every `-----BEGIN X-----` … `-----END X-----` block, ignores text between blocks, and decodes
/// the body whatever its line layout; the DER is then handed to the libraries' DER parsers.
enum PEMText {
    /// One decoded block.
    struct Block {
        /// The label between `BEGIN ` and `-----`, e.g. `PRIVATE KEY`.
        var label: String
        /// The decoded body.
        var derBytes: [UInt8]
    }

    /// Why PEM text could not be read.
    enum ReadError: Error, CustomStringConvertible {
        case unterminatedBlock(label: String)
        case invalidBase64(label: String)

        var description: String {
            switch self {
            case .unterminatedBlock(let label): "no -----END \(label)----- line"
            case .invalidBase64(let label): "the \(label) block is not valid base64"
            }
        }
    }

    /// Every block in `text`, in order (empty if there is none).
    static func blocks(in text: String) throws(ReadError) -> [Block] {
        var remaining = Substring(text.replacingOccurrences(of: "\\n", with: "\n"))
        var blocks: [Block] = []
        while let begin = remaining.range(of: "-----BEGIN ") {
            guard let labelEnd = remaining[begin.upperBound...].range(of: "-----") else {
                throw .unterminatedBlock(label: String(remaining[begin.upperBound...].prefix(40)))
            }
            let label = String(remaining[begin.upperBound..<labelEnd.lowerBound])
            guard let end = remaining[labelEnd.upperBound...].range(of: "-----END \(label)-----") else {
                throw .unterminatedBlock(label: label)
            }
            let body = remaining[labelEnd.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(body)), !der.isEmpty else {
                throw .invalidBase64(label: label)
            }
            blocks.append(Block(label: label, derBytes: Array(der)))
            remaining = remaining[end.upperBound...]
        }
        return blocks
    }

    /// The body of the first block whose label is one of `labels`, or `nil`.
    static func firstBlock(in text: String, labelledOneOf labels: Set<String>) throws(ReadError) -> Block? {
        try blocks(in: text).first { labels.contains($0.label) }
    }

    /// `pem` with exactly one trailing newline, as PEM files conventionally end; swift-asn1 and
    /// swift-crypto produce PEM without one, which breaks `cat a.pem b.pem > chain.pem`.
    static func terminated(_ pem: String) -> String {
        var trimmed = Substring(pem)
        while let last = trimmed.last, last.isNewline {
            trimmed = trimmed.dropLast()
        }
        return trimmed + "\n"
    }
}
