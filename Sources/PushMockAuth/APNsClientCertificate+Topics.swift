extension APNsClientCertificate {
    /// The `apns-topic` values this certificate may send to, in a stable order without
    /// duplicates.
    ///
    /// Mirrors APNs (and pushy's mock server):
    /// - single-topic certificate: the bundle ID plus its `.voip` and `.complication` variants;
    /// - multi-topic certificate: the bundle ID, then every listed topic, each followed by its
    ///   `.voip` / `.complication` variant when its kinds include `voip` / `complication` and the
    ///   topic does not already end with that suffix (Apple normally lists the suffixed topics
    ///   explicitly).
    public var allowedTopics: [String] {
        var topics: [String] = []
        var seen: Set<String> = []
        func allow(_ topic: String) {
            if seen.insert(topic).inserted {
                topics.append(topic)
            }
        }

        guard isMultiTopic else {
            if let bundleID {
                allow(bundleID)
                allow(bundleID + ".voip")
                allow(bundleID + ".complication")
            }
            return topics
        }

        if let bundleID {
            allow(bundleID)
        }
        for entry in multiTopics {
            allow(entry.topic)
            for (kind, suffix) in [(APNsCertificateTopic.voipKind, ".voip"), (APNsCertificateTopic.complicationKind, ".complication")]
            where entry.kinds.contains(kind) && !entry.topic.hasSuffix(suffix) {
                allow(entry.topic + suffix)
            }
        }
        return topics
    }

    /// Whether a request with this `apns-topic` is allowed on a connection using this
    /// certificate.
    public func allows(topic: String) -> Bool {
        allowedTopics.contains(topic)
    }
}
