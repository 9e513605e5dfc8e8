import PushMockJSON

/// Reads a JSON value into an ``FCMParsedMessage`` following the schema, the way Google's JSON
/// transcoder (protobuf's `ProtoStreamObjectWriter`) does, and collects every problem in
/// document order instead of stopping at the first:
///
/// * names: proto (`collapse_key`) or JSON (`collapseKey`) spelling, exact case; anything else
///   is `Unknown name "x" at '<enclosing path>': Cannot find field.`
/// * `null` for any field means "not set" (proto3 JSON); as a map value it means `""`;
/// * a list where a single value is expected: `Proto field is not repeating, cannot start list.`
///   (a list for a map: `Cannot bind a list to map for field '<name>'.`);
/// * an object where a scalar is expected: each of its names is unknown at the value's path
///   (what Google reports for `{"data": {"k": {"metadata": …}}}`); an empty one is an invalid
///   value `{}`;
/// * a scalar of the wrong type: `Invalid value at '<path>' (<type>), <JSON text of the value>`;
/// * a second member of a `oneof`: `Invalid value at '<message path>' (oneof), oneof field
///   'target' is already set. Cannot set '<name as sent>'` (a field repeated with the same name
///   is not a conflict: the last occurrence wins).
///
/// Paths use proto names and index map entries and list elements in JSON order
/// (`message.data[0].value`, `message.android.notification.vibrate_timings[1]`).
struct FCMSchemaReader {
    private(set) var issues: [FCMPayloadIssue] = []

    mutating func readMessage(_ object: JSONObject, schema: FCMMessageSchema, path: String) -> FCMParsedMessage {
        var result = FCMParsedMessage(schema: schema)
        var oneofOwners: [String: Int] = [:]
        for member in object.members {
            guard let index = schema.index(of: member.key) else {
                issues.append(.unknownName(member.key, at: path))
                continue
            }
            if member.value.isNull { continue }
            let field = schema.fields[index]
            if let oneof = field.oneof {
                if let owner = oneofOwners[oneof], owner != index {
                    issues.append(
                        .invalidValue(
                            at: path,
                            type: "oneof",
                            "oneof field '\(oneof)' is already set. Cannot set '\(member.key)'"
                        )
                    )
                    continue
                }
                oneofOwners[oneof] = index
            }
            let fieldPath = path.isEmpty ? field.name : path + "." + field.name
            if let value = readField(member.value, field: field, sentName: member.key, parentPath: path, path: fieldPath) {
                result.values[index] = value
            }
        }
        return result
    }

    private mutating func readField(
        _ value: JSONValue,
        field: FCMField,
        sentName: String,
        parentPath: String,
        path: String
    ) -> FCMParsedValue? {
        guard field.isRepeated else {
            return readSingle(value, kind: field.kind, sentName: sentName, parentPath: parentPath, path: path)
        }
        guard case .array(let elements) = value else {
            issues.append(.invalidValue(at: path, type: field.kind.typeName, value.compactString))
            return nil
        }
        var result: [FCMParsedValue] = []
        for (position, element) in elements.enumerated() {
            let elementPath = "\(path)[\(position)]"
            switch element {
            case .array, .null:
                issues.append(.invalidValue(at: elementPath, type: field.kind.typeName, element.compactString))
            default:
                // Elements of a list are rendered without a name (`Field ''` in errors).
                if let parsed = readSingle(element, kind: field.kind, sentName: "", parentPath: path, path: elementPath) {
                    result.append(parsed)
                }
            }
        }
        return .list(result)
    }

    private mutating func readSingle(
        _ value: JSONValue,
        kind: FCMFieldKind,
        sentName: String,
        parentPath: String,
        path: String
    ) -> FCMParsedValue? {
        switch kind {
        case .message(let schema):
            switch value {
            case .object(let object):
                return .message(readMessage(object, schema: schema, path: path))
            case .array:
                issues.append(.notRepeating(sentName, at: parentPath))
            default:
                issues.append(.invalidValue(at: path, type: kind.typeName, value.compactString))
            }
            return nil
        case .structObject:
            switch value {
            case .object(let object):
                return .structObject(object)
            case .array:
                issues.append(.notRepeating(sentName, at: parentPath))
            default:
                issues.append(.invalidValue(at: path, type: kind.typeName, value.compactString))
            }
            return nil
        case .stringMap:
            return readMap(value, kind: kind, sentName: sentName, path: path)
        default:
            switch value {
            case .array:
                issues.append(.notRepeating(sentName, at: parentPath))
                return nil
            case .object(let object):
                reportObjectForScalar(object, type: kind.typeName, path: path)
                return nil
            default:
                return readScalar(value, kind: kind, sentName: sentName, path: path)
            }
        }
    }

    private mutating func reportObjectForScalar(_ object: JSONObject, type: String, path: String) {
        if object.isEmpty {
            issues.append(.invalidValue(at: path, type: type, "{}"))
        } else {
            for member in object.members {
                issues.append(.unknownName(member.key, at: path))
            }
        }
    }

    private mutating func readMap(_ value: JSONValue, kind: FCMFieldKind, sentName: String, path: String)
        -> FCMParsedValue?
    {
        switch value {
        case .object(let object):
            var entries: [FCMStringMap.Entry] = []
            entries.reserveCapacity(object.count)
            for (position, member) in object.members.enumerated() {
                let valuePath = "\(path)[\(position)].value"
                switch member.value {
                case .string(let text):
                    entries.append(FCMStringMap.Entry(key: member.key, value: text))
                case .null:
                    entries.append(FCMStringMap.Entry(key: member.key, value: ""))
                case .object(let inner):
                    reportObjectForScalar(inner, type: FCMFieldKind.string.typeName, path: valuePath)
                default:
                    issues.append(.invalidValue(at: valuePath, type: FCMFieldKind.string.typeName, member.value.compactString))
                }
            }
            return .map(entries)
        case .array:
            issues.append(.invalidValue(at: path, type: "Map", "Cannot bind a list to map for field '\(sentName)'."))
        default:
            issues.append(.invalidValue(at: path, type: kind.typeName, value.compactString))
        }
        return nil
    }

    private mutating func readScalar(_ value: JSONValue, kind: FCMFieldKind, sentName: String, path: String)
        -> FCMParsedValue?
    {
        let invalid = FCMPayloadIssue.invalidValue(at: path, type: kind.typeName, value.compactString)
        switch kind {
        case .string:
            if case .string(let text) = value { return .string(text) }
        case .bool:
            if case .bool(let flag) = value { return .bool(flag) }
        case .int32:
            if let number = Self.int32(value) { return .int32(number) }
        case .float:
            if let number = Self.float(value) { return .float(number) }
        case .enumeration(let schema):
            switch value {
            case .string(let name):
                if let known = schema.value(named: name) { return .enumeration(known) }
            case .number:
                if let number = value.intValue, let known = schema.value(number: number) { return .enumeration(known) }
            default:
                break
            }
        case .duration:
            guard case .string(let text) = value else {
                issues.append(
                    .invalidValue(
                        at: path,
                        type: kind.typeName,
                        "Field '\(sentName)', Invalid data type for duration, value is \(value.compactString)"
                    )
                )
                return nil
            }
            switch FCMProtoDuration.parse(text) {
            case .success(let duration):
                return .duration(duration)
            case .failure(let reason):
                issues.append(.invalidValue(at: path, type: kind.typeName, "Field '\(sentName)', \(reason.text)"))
                return nil
            }
        case .timestamp:
            guard case .string(let text) = value else {
                issues.append(
                    .invalidValue(
                        at: path,
                        type: kind.typeName,
                        "Field '\(sentName)', Invalid data type for timestamp, value is \(value.compactString)"
                    )
                )
                return nil
            }
            switch FCMProtoTimestamp.parse(text) {
            case .success(let timestamp):
                return .timestamp(timestamp)
            case .failure(let reason):
                issues.append(.invalidValue(at: path, type: kind.typeName, "Field '\(sentName)', \(reason.text)"))
                return nil
            }
        case .stringMap, .structObject, .message:
            break
        }
        issues.append(invalid)
        return nil
    }

    /// Proto3 JSON int32: a JSON number with an integral value, or a string holding a decimal
    /// integer, within the 32-bit range.
    static func int32(_ value: JSONValue) -> Int32? {
        switch value {
        case .number:
            return value.int64Value.flatMap { Int32(exactly: $0) }
        case .string(let text):
            return Int32(text)
        default:
            return nil
        }
    }

    /// Proto3 JSON float: a JSON number or a numeric string (also `NaN`, `Infinity`,
    /// `-Infinity`), finite values within `Float`'s range.
    static func float(_ value: JSONValue) -> Double? {
        let number: Double?
        switch value {
        case .number(let text):
            number = Double(text)
        case .string(let text):
            switch text {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default:
                // Only the JSON number grammar, not Swift's (no "0x1p3", "inf", " 1").
                guard let first = text.utf8.first, first == UInt8(ascii: "-") || FCMASCII.isDigit(first),
                    let last = text.utf8.last, FCMASCII.isDigit(last),
                    (try? JSONValue(parsing: text))?.numberText != nil
                else { return nil }
                number = Double(text)
            }
        default:
            return nil
        }
        guard let number, number.isFinite, number.magnitude <= Double(Float.greatestFiniteMagnitude) else {
            return nil
        }
        return number
    }
}
