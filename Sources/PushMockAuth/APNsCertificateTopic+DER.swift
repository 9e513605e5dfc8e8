import SwiftASN1

extension APNsCertificateTopic {
    /// Encodes a topic list as the value of Apple's multi-topic extension:
    /// `SEQUENCE { UTF8String topic, SEQUENCE { UTF8String kind, ... }, ... }`.
    static func derEncodedList(_ topics: [APNsCertificateTopic]) throws(PKIError) -> [UInt8] {
        var serializer = DER.Serializer()
        do {
            try serializer.appendConstructedNode(identifier: .sequence) { listCoder in
                for entry in topics {
                    try listCoder.serialize(ASN1UTF8String(entry.topic))
                    try listCoder.appendConstructedNode(identifier: .sequence) { kindCoder in
                        for kind in entry.kinds {
                            try kindCoder.serialize(ASN1UTF8String(kind))
                        }
                    }
                }
            }
        } catch {
            throw PKIError.certificateCreationFailed.with(detail: "cannot encode the topic list: \(error)")
        }
        return serializer.serializedBytes
    }

    /// Decodes the value of Apple's multi-topic extension.
    ///
    /// Topics may be any of the ASN.1 string types X.509 uses, in case an issuer other than Apple
    /// wrote them; a topic not followed by a kinds SEQUENCE gets no kinds. Anything else (a kinds
    /// SEQUENCE before the first topic, a non-string kind, another element type) is rejected
    /// rather than guessed at.
    static func decodeList(derEncoded value: ArraySlice<UInt8>) throws(PKIError) -> [APNsCertificateTopic] {
        let root: ASN1Node
        do {
            root = try DER.parse(value)
        } catch {
            throw PKIError.malformedAppleExtension.with(detail: "topic list is not DER: \(error)")
        }
        guard root.identifier == .sequence, case .constructed(let elements) = root.content else {
            throw PKIError.malformedAppleExtension.with(detail: "topic list is not a SEQUENCE")
        }

        var topics: [APNsCertificateTopic] = []
        for element in elements {
            if let topic = decodeString(element) {
                topics.append(APNsCertificateTopic(topic: topic, kinds: []))
                continue
            }
            guard element.identifier == .sequence, case .constructed(let kindNodes) = element.content else {
                throw PKIError.malformedAppleExtension.with(detail: "unexpected element \(element.identifier) in topic list")
            }
            guard !topics.isEmpty else {
                throw PKIError.malformedAppleExtension.with(detail: "kinds SEQUENCE before the first topic")
            }
            for kindNode in kindNodes {
                guard let kind = decodeString(kindNode) else {
                    throw PKIError.malformedAppleExtension.with(detail: "topic kind is not a string")
                }
                topics[topics.count - 1].kinds.append(kind)
            }
        }
        return topics
    }

    private static func decodeString(_ node: ASN1Node) -> String? {
        switch node.identifier {
        case .utf8String: (try? ASN1UTF8String(derEncoded: node)).map(String.init)
        case .printableString: (try? ASN1PrintableString(derEncoded: node)).map(String.init)
        case .ia5String: (try? ASN1IA5String(derEncoded: node)).map(String.init)
        case .visibleString: (try? ASN1VisibleString(derEncoded: node)).map(String.init)
        default: nil
        }
    }
}
