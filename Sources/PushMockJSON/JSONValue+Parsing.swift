extension JSONValue {
    /// Parses exactly one JSON value from `bytes` (surrounding whitespace allowed), with the
    /// same strictness as ``JSONScanner/scan(_:maxDepth:)-(UnsafeRawBufferPointer,_)`` and the
    /// same error offsets in all but a few UTF-8 corner cases.
    public init(parsing bytes: some Collection<UInt8>, maxDepth: Int = JSONScanner.defaultMaxDepth) throws(JSONSyntaxError) {
        let result =
            bytes.withContiguousStorageIfAvailable { buffer in
                JSONParser.parse(UnsafeRawBufferPointer(buffer), maxDepth: maxDepth)
            } ?? Array(bytes).withUnsafeBytes { JSONParser.parse($0, maxDepth: maxDepth) }
        self = try result.get()
    }

    /// Parses exactly one JSON value from the UTF-8 of `text`.
    public init(parsing text: String, maxDepth: Int = JSONScanner.defaultMaxDepth) throws(JSONSyntaxError) {
        try self.init(parsing: Array(text.utf8), maxDepth: maxDepth)
    }
}
