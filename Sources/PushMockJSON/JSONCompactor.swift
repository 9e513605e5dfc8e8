/// Removes insignificant whitespace from a JSON value without re-encoding it.
///
/// The journal embeds request payloads verbatim inside one-line records, so a pretty-printed
/// body must lose its line breaks, but the bytes of strings and numbers and the key order must
/// stay exactly as the client sent them (re-encoding through a tree would normalise escapes and
/// number spellings and cost far more).
///
/// The input must already be valid JSON (check it with ``JSONScanner``). Invalid input never
/// causes a crash or out-of-bounds access, but the output is then unspecified.
public enum JSONCompactor {
    /// Appends the compact form of `input` to `output`.
    public static func compact(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        let count = input.count
        guard count > 0 else { return }
        var index = 0
        var runStart = 0
        var inString = false
        while index < count {
            let byte = input[index]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") { inString = false }
                index += 1
            } else if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                if index > runStart {
                    output.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[runStart..<index]))
                }
                index += 1
                while index < count {
                    let next = input[index]
                    guard next == 0x20 || next == 0x0A || next == 0x0D || next == 0x09 else { break }
                    index += 1
                }
                runStart = index
            } else {
                if byte == UInt8(ascii: "\"") { inString = true }
                index += 1
            }
        }
        let end = min(index, count)
        if end > runStart {
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[runStart..<end]))
        }
    }

    /// Appends the compact form of `input` (any byte collection) to `output`.
    @inlinable
    public static func compact(_ input: some Collection<UInt8>, into output: inout [UInt8]) {
        let done: Void? = input.withContiguousStorageIfAvailable { buffer in
            compact(UnsafeRawBufferPointer(buffer), into: &output)
        }
        if done == nil {
            let copy = Array(input)
            copy.withUnsafeBytes { compact($0, into: &output) }
        }
    }

    /// Returns the compact form of `input`.
    @inlinable
    public static func compacted(_ input: some Collection<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        compact(input, into: &output)
        return output
    }
}
