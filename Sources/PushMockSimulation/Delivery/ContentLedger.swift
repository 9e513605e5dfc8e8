import Synchronization

/// The payload bytes one simulator's notification contents hold, counted as contents are made
/// and freed, so that the simulator can bound them.
///
/// Devices keep up to 200 notifications each and a payload may be a megabyte (FCM's platform
/// blocks are outside its 4 KB budget): three tokens sent 210 messages of 900 KB each held
/// 600 MB, and nothing bounded it but the number of devices. Contents are shared (a bulk
/// send's every push refers to one), so counting them where they live counts each payload
/// once, however many devices remember it.
package final class ContentLedger: Sendable {
    private let bytes = Atomic<Int>(0)

    package init() {}

    /// The payload bytes of the contents alive now.
    package var heldBytes: Int { bytes.load(ordering: .relaxed) }

    func add(_ count: Int) { bytes.wrappingAdd(count, ordering: .relaxed) }

    func remove(_ count: Int) { bytes.wrappingSubtract(count, ordering: .relaxed) }
}
