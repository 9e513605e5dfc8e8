import Foundation
import PushMockCore
public import PushMockJSON

/// One row of a recipient file: who (a device/registration token, or for FCM a topic or
/// condition) and the data its template is filled with.
public struct Recipient: Sendable, Hashable {
    /// APNs device token or FCM registration token.
    public var token: String?
    /// FCM topic.
    public var topic: String?
    /// FCM condition.
    public var condition: String?
    /// Per-row template data.
    public var data: JSONObject
    /// 1-based line of the file (for error messages).
    public var line: Int

    public init(token: String? = nil, topic: String? = nil, condition: String? = nil, data: JSONObject = JSONObject(), line: Int = 0) {
        self.token = token
        self.topic = topic
        self.condition = condition
        self.data = data
        self.line = line
    }

    /// Column / key names read as the token.
    public static let tokenKeys = ["token", "device_token", "deviceToken", "registration_token", "registrationToken"]
}

/// Reads recipient files: CSV with a header row, or JSON Lines.
///
/// **CSV** (RFC 4180: commas, double-quoted fields, `""` for a quote, CRLF or LF): the first
/// row names the columns. The `token` column (also `device_token`, `registration_token`)
/// is the recipient; `topic` and `condition` are FCM targets; every other column becomes a
/// string in the row's data. Empty lines are skipped.
///
/// **JSON Lines**: one object per line. `token` (or an alias), `topic`, `condition` are the
/// target; a `data` object, if present, is the data, and every other member is added to it
/// (any JSON type, so templates can insert numbers and objects). Empty lines and lines
/// starting with `//` are skipped.
public enum RecipientFile {
    /// Parses a file by its extension: `.csv`, else JSON Lines (`.jsonl`, `.ndjson`, `.json`).
    public static func load(path: String) throws(SenderError) -> [Recipient] {
        let data: Data
        do {
            data = try FileContents.read(path)
        } catch {
            throw SenderError(.invalidRecipients, "cannot read the recipient file \(path): \(error.reason)")
        }
        var text = String(decoding: data, as: UTF8.self)
        // Excel's "CSV UTF-8" starts with a byte-order mark, which is no part of the first
        // column's name (the header was refused for a "﻿token" column).
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        if path.lowercased().hasSuffix(".csv") {
            return try parseCSV(text)
        }
        return try parseJSONLines(text)
    }

    /// Parses CSV text.
    public static func parseCSV(_ text: String) throws(SenderError) -> [Recipient] {
        let rows = try CSVReader.rows(text)
        guard let header = rows.first else { return [] }
        let columns = header.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        guard columns.contains(where: { Recipient.tokenKeys.contains($0) || $0 == "topic" || $0 == "condition" }) else {
            throw SenderError(
                .invalidRecipients,
                "CSV line \(header.line): the header needs a \"token\" column (or \"topic\" / \"condition\"); found \(columns.joined(separator: ", "))"
            )
        }
        var recipients: [Recipient] = []
        for row in rows.dropFirst() {
            if row.fields.count == 1, row.fields[0].isEmpty { continue }
            guard row.fields.count == columns.count else {
                throw SenderError(
                    .invalidRecipients,
                    "CSV line \(row.line): \(row.fields.count) fields, the header has \(columns.count)"
                )
            }
            var recipient = Recipient(line: row.line)
            for (column, value) in zip(columns, row.fields) {
                if Recipient.tokenKeys.contains(column) {
                    recipient.token = value.isEmpty ? nil : value
                } else if column == "topic" {
                    recipient.topic = value.isEmpty ? nil : value
                } else if column == "condition" {
                    recipient.condition = value.isEmpty ? nil : value
                } else {
                    recipient.data[column] = .string(value)
                }
            }
            try check(recipient)
            recipients.append(recipient)
        }
        return recipients
    }

    /// Parses JSON Lines text.
    public static func parseJSONLines(_ text: String) throws(SenderError) -> [Recipient] {
        var recipients: [Recipient] = []
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty || trimmed.hasPrefix("//") { continue }
            let value: JSONValue
            do {
                value = try JSONValue(parsing: trimmed)
            } catch {
                throw SenderError(.invalidRecipients, "JSON Lines line \(lineNumber): not JSON (\(error))", cause: error)
            }
            guard case .object(let object) = value else {
                throw SenderError(.invalidRecipients, "JSON Lines line \(lineNumber): expected an object")
            }
            var recipient = Recipient(line: lineNumber)
            for member in object.members {
                let isTarget = Recipient.tokenKeys.contains(member.key) || member.key == "topic" || member.key == "condition"
                if isTarget, member.value == .null { continue }
                if Recipient.tokenKeys.contains(member.key) {
                    recipient.token = try string(member.value, member.key, line: lineNumber)
                } else if member.key == "topic" {
                    recipient.topic = try string(member.value, member.key, line: lineNumber)
                } else if member.key == "condition" {
                    recipient.condition = try string(member.value, member.key, line: lineNumber)
                } else if member.key == "data", case .object(let data) = member.value {
                    for entry in data.members { recipient.data[entry.key] = entry.value }
                } else {
                    recipient.data[member.key] = member.value
                }
            }
            try check(recipient)
            recipients.append(recipient)
        }
        return recipients
    }

    private static func string(_ value: JSONValue, _ key: String, line: Int) throws(SenderError) -> String {
        guard let string = value.stringValue, !string.isEmpty else {
            throw SenderError(.invalidRecipients, "JSON Lines line \(line): \"\(key)\" must be a non-empty string")
        }
        return string
    }

    private static func check(_ recipient: Recipient) throws(SenderError) {
        let targets = [recipient.token, recipient.topic, recipient.condition].compactMap { $0 }.count
        guard targets == 1 else {
            throw SenderError(
                .invalidRecipients,
                "line \(recipient.line): needs exactly one of token, topic or condition (found \(targets))"
            )
        }
    }
}

/// A small RFC 4180 reader.
enum CSVReader {
    struct Row {
        var fields: [String]
        var line: Int
    }

    static func rows(_ text: String) throws(SenderError) -> [Row] {
        var rows: [Row] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var inQuotes = false
        var fieldWasQuoted = false
        var line = 1
        var rowLine = 1
        let bytes = Array(text.utf8)
        var index = 0
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            fieldWasQuoted = false
        }
        while index < bytes.count {
            let byte = bytes[index]
            if inQuotes {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    field.append(byte)
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""):
                    guard field.isEmpty, !fieldWasQuoted else {
                        throw SenderError(.invalidRecipients, "CSV line \(line): a quote inside an unquoted field")
                    }
                    inQuotes = true
                    fieldWasQuoted = true
                case UInt8(ascii: ","):
                    endField()
                case UInt8(ascii: "\r"):
                    break
                case UInt8(ascii: "\n"):
                    endField()
                    rows.append(Row(fields: fields, line: rowLine))
                    fields.removeAll()
                    line += 1
                    rowLine = line
                default:
                    field.append(byte)
                }
            }
            index += 1
        }
        if inQuotes {
            throw SenderError(.invalidRecipients, "CSV line \(rowLine): unterminated quoted field")
        }
        if !field.isEmpty || !fields.isEmpty || fieldWasQuoted {
            endField()
            rows.append(Row(fields: fields, line: rowLine))
        }
        return rows
    }
}
