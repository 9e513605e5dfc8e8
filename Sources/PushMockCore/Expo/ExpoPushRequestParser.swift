import PushMockJSON

/// A send request that passed request-level validation: one entry per (message, recipient) in
/// request order — exactly one ticket each.
package struct ExpoSendRequest: Hashable, Sendable {
    package struct Entry: Hashable, Sendable {
        package var message: ExpoMessage
        /// Set when this recipient gets an error ticket instead of being relayed.
        package var ticketError: ExpoDeliveryError?
        /// The payload size measured by the options' rule.
        package var payloadSize: Int
        /// Set when the message is over the limit but the options report it in the receipt.
        package var receiptError: ExpoDeliveryError?
    }

    package var entries: [Entry]
    /// Whether the response's `data` is an array or one ticket object.
    package var shape: ExpoTicketShape
    /// The one project every known token belongs to, when the lookup knew any.
    package var project: String?
}

/// Turns the body of `POST /--/api/v2/push/send` into an ``ExpoSendRequest`` or the
/// ``ExpoRequestError`` the service answers instead.
///
/// Order of checks (the first failure decides; docs/expo.md §4):
/// 1. JSON syntax; 2. the root is a message object or an array of them; 3. each message is an
/// object with a `to` that is a string or a non-empty list of strings; 4. at most 100
/// notifications after expanding `to` lists; 5. every other field, message by message, field
/// by field in the order of the docs; 6. all known tokens belong to one project
/// (`PUSH_TOO_MANY_EXPERIENCE_IDS`); 7. per recipient: token syntax and payload size, which
/// become error tickets.
package enum ExpoPushRequestParser {
    /// Parses and validates `body` (already decompressed).
    ///
    /// - Parameter projectOf: the project (`@owner/slug`) a token belongs to, `nil` when unknown;
    ///   unknown tokens never trigger `PUSH_TOO_MANY_EXPERIENCE_IDS`.
    package static func parse(
        body: some Collection<UInt8>,
        options: ExpoValidationOptions = ExpoValidationOptions(),
        projectOf: (ExpoPushToken) -> String? = { _ in nil }
    ) throws(ExpoRequestError) -> ExpoSendRequest {
        let root: JSONValue
        do {
            root = try JSONValue(parsing: body, maxDepth: options.maximumJSONDepth)
        } catch {
            throw .malformedJSON
        }

        // Steps 2 and 3: the shape of the root and of every `to`.
        let messages: [(object: JSONObject, prefix: String)]
        let isArrayBody: Bool
        switch root {
        case .object(let object):
            messages = [(object, "")]
            isArrayBody = false
        case .array(let elements):
            isArrayBody = true
            var list: [(JSONObject, String)] = []
            list.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                guard case .object(let object) = element else {
                    throw .validation("[\(index)]", "must be of type object")
                }
                list.append((object, "[\(index)]."))
            }
            messages = list
        default:
            throw .validation("value", "must be one of [object, array]")
        }

        var recipients: [[String]] = []
        var recipientIsString: [Bool] = []
        recipients.reserveCapacity(messages.count)
        for message in messages {
            let (list, isString) = try readRecipients(message.object["to"], prefix: message.prefix)
            recipients.append(list)
            recipientIsString.append(isString)
        }

        // Step 4.
        let total = recipients.reduce(0) { $0 + $1.count }
        if total > options.maximumNotificationsPerRequest {
            throw .tooManyNotifications(received: total, limit: options.maximumNotificationsPerRequest)
        }

        // Step 5.
        var templates: [ExpoMessage] = []
        templates.reserveCapacity(messages.count)
        for (index, message) in messages.enumerated() {
            let reader = ExpoMessageReader(object: message.object, prefix: message.prefix, options: options)
            templates.append(try reader.read(messageIndex: index))
        }

        // Step 6 needs every token read first.
        var tokens: [[ExpoPushToken?]] = []
        tokens.reserveCapacity(messages.count)
        for (index, list) in recipients.enumerated() {
            var row: [ExpoPushToken?] = []
            row.reserveCapacity(list.count)
            for (position, text) in list.enumerated() {
                let token = ExpoPushToken(text, syntax: options.tokenSyntax)
                if token == nil, options.invalidTokenAnswer == .requestError {
                    let path = messages[index].prefix + (recipientIsString[index] ? "to" : "to[\(position)]")
                    throw .validation(path, "must be a valid Expo push token")
                }
                row.append(token)
            }
            tokens.append(row)
        }
        let project = try ExpoProjectGrouping.check(tokens.joined().compactMap { $0 }, projectOf: projectOf)

        // Step 7.
        var entries: [ExpoSendRequest.Entry] = []
        entries.reserveCapacity(total)
        for (index, template) in templates.enumerated() {
            let size = options.payloadSizeRule.size(of: template.object)
            let tooBig = size > options.maximumPayloadBytes
            for (position, text) in recipients[index].enumerated() {
                var message = template
                message.to = text
                message.token = tokens[index][position]
                message.object["to"] = .string(text)
                var entry = ExpoSendRequest.Entry(message: message, ticketError: nil, payloadSize: size, receiptError: nil)
                if message.token == nil {
                    entry.ticketError = .invalidToken(text)
                } else if tooBig {
                    let error = ExpoDeliveryError.messageTooBig(text, size: size, limit: options.maximumPayloadBytes)
                    switch options.messageTooBigAnswer {
                    case .ticketError: entry.ticketError = error
                    case .receiptError: entry.receiptError = error
                    }
                }
                entries.append(entry)
            }
        }

        let shape: ExpoTicketShape = !isArrayBody && recipientIsString[0] ? .single : .array
        return ExpoSendRequest(entries: entries, shape: shape, project: project)
    }

    /// `to` as a list of strings, and whether it was a single string.
    private static func readRecipients(_ value: JSONValue?, prefix: String) throws(ExpoRequestError) -> ([String], Bool) {
        switch value {
        case nil, .null?:
            throw .validation(prefix + "to", "is required")
        case .string(let token)?:
            return ([token], true)
        case .array(let elements)?:
            guard !elements.isEmpty else { throw .validation(prefix + "to", "must contain at least 1 items") }
            var list: [String] = []
            list.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                guard case .string(let token) = element else {
                    throw .validation(prefix + "to[\(index)]", "must be a string")
                }
                list.append(token)
            }
            return (list, false)
        default:
            throw .validation(prefix + "to", "must be one of [string, array]")
        }
    }
}

/// The one-project rule: Expo refuses a request whose tokens belong to more than one project.
package enum ExpoProjectGrouping {
    /// The single project of `tokens` (`nil` when none is known), or `PUSH_TOO_MANY_EXPERIENCE_IDS`
    /// with the projects in order of first appearance and each project's tokens in request order.
    package static func check(
        _ tokens: [ExpoPushToken],
        projectOf: (ExpoPushToken) -> String?
    ) throws(ExpoRequestError) -> String? {
        var groups: [(project: String, tokens: [String])] = []
        for token in tokens {
            guard let project = projectOf(token) else { continue }
            if let index = groups.firstIndex(where: { $0.project == project }) {
                groups[index].tokens.append(token.rawValue)
            } else {
                groups.append((project, [token.rawValue]))
            }
        }
        if groups.count > 1 { throw .tooManyExperienceIDs(groups) }
        return groups.first?.project
    }
}
