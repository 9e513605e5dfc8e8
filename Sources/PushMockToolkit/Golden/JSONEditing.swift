import PushMockJSON

/// Edits of ``JSONValue`` trees that ``JSONPath`` (which only selects) does not offer.
enum JSONEditing {
    /// Replaces every value `path` selects by `transform`'s result; `nil` removes the member or
    /// element. Steps that do not apply leave the document unchanged. Returns `nil` only when
    /// the path is empty and `transform` removes the root.
    static func transform(
        _ value: JSONValue,
        at path: ArraySlice<JSONPath.Component>,
        _ transform: (JSONValue) -> JSONValue?
    ) -> JSONValue? {
        guard let step = path.first else { return transform(value) }
        let rest = path.dropFirst()
        switch (step, value) {
        case (.key(let name), .object(var object)):
            guard let index = object.lastIndex(ofKey: name) else { return value }
            if let replaced = self.transform(object.members[index].value, at: rest, transform) {
                object.members[index].value = replaced
            } else {
                object.members.remove(at: index)
            }
            return .object(object)
        case (.index(let index), .array(var elements)):
            let resolved = index < 0 ? elements.count + index : index
            guard elements.indices.contains(resolved) else { return value }
            if let replaced = self.transform(elements[resolved], at: rest, transform) {
                elements[resolved] = replaced
            } else {
                elements.remove(at: resolved)
            }
            return .array(elements)
        case (.wildcard, .object(let object)):
            return .object(
                JSONObject(
                    object.members.compactMap { member in
                        self.transform(member.value, at: rest, transform).map { (key: member.key, value: $0) }
                    }))
        case (.wildcard, .array(let elements)):
            return .array(elements.compactMap { self.transform($0, at: rest, transform) })
        default:
            return value
        }
    }

    /// Convenience for a whole path.
    static func transform(
        _ value: JSONValue,
        at path: [JSONPath.Component],
        _ transform: (JSONValue) -> JSONValue?
    ) -> JSONValue? {
        self.transform(value, at: path[...], transform)
    }

    /// Applies `transform` to every string value (not to member names).
    static func mapStrings(_ value: JSONValue, _ transform: (String) -> String) -> JSONValue {
        switch value {
        case .string(let text):
            .string(transform(text))
        case .array(let elements):
            .array(elements.map { mapStrings($0, transform) })
        case .object(let object):
            .object(JSONObject(object.members.map { (key: $0.key, value: mapStrings($0.value, transform)) }))
        default:
            value
        }
    }
}
