/// The design's notification types (sections 3.1 and 3.2) with what each one implies: its
/// rate-limit category, Android channel, priority, and the screen it opens (section 5).
public enum NotificationType: String, Sendable, CaseIterable {
    case orderConfirmed = "order.confirmed"
    case paymentReceived = "payment.received"
    case messageReceived = "message.received"
    case accountSecurity = "account.security"
    case promoOffer = "promo.offer"
    case featureAnnounce = "feature.announce"
    case reEngagement = "re_engagement"

    /// Section 8's rate-limit categories.
    public enum Category: String, Sendable {
        case transactional, messages, marketing, security
    }

    public var category: Category {
        switch self {
        case .orderConfirmed, .paymentReceived: .transactional
        case .messageReceived: .messages
        case .accountSecurity: .security
        case .promoOffer, .featureAnnounce, .reEngagement: .marketing
        }
    }

    /// Section 3.3: security alerts share the transactional channel ("Orders & Payments"
    /// importance HIGH); there is no fourth channel.
    public var channel: String {
        switch category {
        case .transactional, .security: "transactional"
        case .messages: "messages"
        case .marketing: "marketing"
        }
    }

    /// High for everything the user is waiting for; marketing may wait for a dozing phone.
    public var androidPriority: String { category == .marketing ? "normal" : "high" }
    public var apnsPriority: String { category == .marketing ? "5" : "10" }

    /// The `entityType` of section 4.2's schema.
    public var entityType: String {
        switch self {
        case .orderConfirmed: "order"
        case .paymentReceived: "payment"
        case .messageReceived: "message"
        case .accountSecurity, .reEngagement: "user"
        case .promoOffer: "offer"
        case .featureAnnounce: "feature"
        }
    }

    /// Section 5's deep links, as app paths (`data.deepLinkPath`).
    public func deepLinkPath(entityID: String) -> String {
        switch self {
        case .orderConfirmed: "/orders/\(entityID)"
        case .paymentReceived: "/wallet"
        case .messageReceived: "/chats/\(entityID)"
        case .accountSecurity: "/settings/security"
        case .promoOffer: "/offers/\(entityID)"
        case .featureAnnounce: "/features/\(entityID)"
        case .reEngagement: "/"
        }
    }
}
