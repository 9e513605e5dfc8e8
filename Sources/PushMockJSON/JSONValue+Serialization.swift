extension JSONValue {
    /// Writes this value compactly (original member order) through `writer`. A `.number` whose
    /// text is not a valid JSON number (only possible for hand-built values) is written as
    /// `null` so the output always stays valid JSON.
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .null:
            writer.null()
        case .bool(let value):
            writer.bool(value)
        case .number(let text):
            if JSONNumberText.isValid(text) {
                writer.raw(text.utf8)
            } else {
                writer.null()
            }
        case .string(let value):
            writer.string(value)
        case .array(let elements):
            writer.beginArray()
            for element in elements {
                element.write(to: &writer)
            }
            writer.endArray()
        case .object(let object):
            writer.beginObject()
            for member in object.members {
                writer.key(member.key)
                member.value.write(to: &writer)
            }
            writer.endObject()
        }
    }

    /// Compact UTF-8 JSON in original member order — what goes on the wire or into a journal.
    public var compactBytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        writer.flush()
        return writer.bytes
    }

    /// Compact JSON text in original member order.
    public var compactString: String {
        String(decoding: compactBytes, as: UTF8.self)
    }

    /// Canonical form for golden files and readable diffs: members sorted by name (UTF-8 byte
    /// order, duplicates kept in their relative order), two-space indentation, `": "` between
    /// name and value, empty containers as `{}`/`[]`, numbers in their original text, no
    /// trailing newline. Two values that are `==` apart from member order and number spelling
    /// may still differ here in number spelling (`1` vs `1.0`) — it is lossless, not normalising.
    public var canonicalBytes: [UInt8] {
        var output: [UInt8] = []
        appendCanonical(to: &output, indent: 0)
        return output
    }

    /// ``canonicalBytes`` as a string.
    public var canonicalString: String {
        String(decoding: canonicalBytes, as: UTF8.self)
    }

    private func appendCanonical(to output: inout [UInt8], indent: Int) {
        switch self {
        case .array(let elements) where !elements.isEmpty:
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                output.append(contentsOf: index == 0 ? [0x0A] : [UInt8(ascii: ","), 0x0A])
                output.append(contentsOf: repeatElement(0x20, count: indent + 2))
                element.appendCanonical(to: &output, indent: indent + 2)
            }
            output.append(0x0A)
            output.append(contentsOf: repeatElement(0x20, count: indent))
            output.append(UInt8(ascii: "]"))
        case .object(let object) where !object.isEmpty:
            output.append(UInt8(ascii: "{"))
            for (index, member) in object.sortedMembers.enumerated() {
                output.append(contentsOf: index == 0 ? [0x0A] : [UInt8(ascii: ","), 0x0A])
                output.append(contentsOf: repeatElement(0x20, count: indent + 2))
                JSONWriter.appendQuoted(member.key, to: &output)
                output.append(contentsOf: [UInt8(ascii: ":"), 0x20])
                member.value.appendCanonical(to: &output, indent: indent + 2)
            }
            output.append(0x0A)
            output.append(contentsOf: repeatElement(0x20, count: indent))
            output.append(UInt8(ascii: "}"))
        default:
            JSONWriter.write(into: &output) { write(to: &$0) }
        }
    }
}
