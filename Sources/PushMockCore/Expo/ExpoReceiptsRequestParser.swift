import PushMockJSON

/// Reads the body of `POST /--/api/v2/push/getReceipts`: `{"ids":["…",…]}` with at most 1000
/// ids (Expo docs, `PUSH_TOO_MANY_RECEIPTS`). Checks: JSON syntax, root object, `ids` present and
/// an array, the count, then each id a string.
package enum ExpoReceiptsRequestParser {
    package static func parse(
        body: some Collection<UInt8>,
        maximumIDs: Int = 1000
    ) throws(ExpoRequestError) -> [ExpoReceiptID] {
        let root: JSONValue
        do {
            root = try JSONValue(parsing: body, maxDepth: 16)
        } catch {
            throw .malformedJSON
        }
        guard case .object(let object) = root else { throw .validation("value", "must be of type object") }
        guard let ids = object["ids"], !ids.isNull else { throw .validation("ids", "is required") }
        guard case .array(let elements) = ids else { throw .validation("ids", "must be an array") }
        if elements.count > maximumIDs { throw .tooManyReceipts(received: elements.count, limit: maximumIDs) }
        var result: [ExpoReceiptID] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .string(let id) = element else { throw .validation("ids[\(index)]", "must be a string") }
            result.append(ExpoReceiptID(id))
        }
        return result
    }
}
