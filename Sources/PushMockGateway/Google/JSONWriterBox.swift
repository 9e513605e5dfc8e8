import PushMockJSON

/// A small helper over ``JSONWriter`` for the cold-path bodies the Google endpoints build.
struct JSONWriterBox {
    private(set) var writer = JSONWriter()

    mutating func object(_ body: (inout JSONWriter) -> Void) {
        writer.beginObject()
        body(&writer)
        writer.endObject()
    }

    var bytes: [UInt8] {
        var copy = writer
        copy.flush()
        return copy.bytes
    }
}
