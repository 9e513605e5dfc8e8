/// Re-indents compact JSON the way Google's front end prints error bodies: two spaces per
/// level, one member or element per line, `": "` between name and value, `{}`/`[]` for empty
/// containers, and a trailing newline.
///
/// It works on the compact bytes token by token (tracking only whether it is inside a string),
/// so it needs no parse tree and keeps member order and number text exactly.
enum GooglePrettyPrinter {
    static func format(_ compact: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(compact.count * 2)
        var depth = 0
        var inString = false
        var escaped = false
        var index = 0

        func newline(_ output: inout [UInt8], _ depth: Int) {
            output.append(0x0A)
            output.append(contentsOf: repeatElement(0x20, count: depth * 2))
        }

        while index < compact.count {
            let byte = compact[index]
            if inString {
                output.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                output.append(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if index + 1 < compact.count, compact[index + 1] == close {
                    output.append(byte)
                    output.append(close)
                    index += 1
                } else {
                    output.append(byte)
                    depth += 1
                    newline(&output, depth)
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline(&output, depth)
                output.append(byte)
            case UInt8(ascii: ","):
                output.append(byte)
                newline(&output, depth)
            case UInt8(ascii: ":"):
                output.append(byte)
                output.append(0x20)
            default:
                output.append(byte)
            }
            index += 1
        }
        output.append(0x0A)
        return output
    }
}
