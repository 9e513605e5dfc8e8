@_spi(Locking) public import PushMockCore

/// Every simulated device of one gateway. Devices appear on their first notification (with
/// the default connectivity) or when someone sets their connectivity.
///
/// Shared by all connections: one `Mutex` around the device table, held for one device
/// operation at a time.
public final class DeliverySimulator: Sendable {
    public let limits: DeliveryLimits
    private let state: SanitizerVisibleMutex<State>
    /// The payload bytes of the contents made for this simulator (``DeliveryLimits/payloadMebibytes``).
    package let contentLedger = ContentLedger()

    struct State {
        var devices = DeviceTable()
        var defaultConnectivity: Connectivity
        var behaviour: EngagementModel?
        var sink: (@Sendable ([DeviceEvent]) -> Void)?
        /// The bytes `receive(_:now:)` read to bring each device's next slots into the cache,
        /// combined: kept so that those reads are not optimised away.
        var warmedBytes: UInt8 = 0
    }

    /// A timeline event the simulator hands to its sink, with its device.
    public typealias DeviceEvent = (address: DeviceAddress, event: DeviceTimelineEvent)

    public init(limits: DeliveryLimits = .defaults, defaultConnectivity: Connectivity = .online) {
        self.limits = limits
        self.state = SanitizerVisibleMutex(State(defaultConnectivity: defaultConnectivity))
    }

    /// The connectivity new devices start with.
    public var defaultConnectivity: Connectivity {
        get { state.withLock { $0.defaultConnectivity } }
        set { state.withLock { $0.defaultConnectivity = newValue } }
    }

    /// The seeded behaviour model that decides opens, dismissals and actions on delivery;
    /// `nil` (the default): only commands engage, and delivery does no extra work.
    public var engagementModel: EngagementModel? {
        get { state.withLock { $0.behaviour } }
        set { state.withLock { $0.behaviour = newValue } }
    }

    /// Receives every delivery receipt (`delivered`) and engagement (`displayed`, `opened`,
    /// `dismissed`, `action`) after the operation that caused it, outside the lock; `nil` (the
    /// default): nothing is collected.
    public func setEventSink(_ sink: (@Sendable ([DeviceEvent]) -> Void)?) {
        state.withLock { $0.sink = sink }
    }

    /// Takes what `device` collected for the sink.
    private static func drain(_ device: inout SimulatedDevice, into events: inout [DeviceEvent]) {
        guard !device.outbox.isEmpty else { return }
        events += device.outbox.map { (device.address, $0) }
        device.outbox.removeAll()
    }

    private func hand(_ events: [DeviceEvent], to sink: (@Sendable ([DeviceEvent]) -> Void)?) {
        guard let sink, !events.isEmpty else { return }
        sink(events)
    }

    /// Hands accepted notifications to their devices (tuples: for tests and cold paths).
    public func receive(
        _ deliveries: [(address: DeviceAddress, policy: StoragePolicy, notification: SimulatedNotification)], now: Timestamp
    ) {
        receive(deliveries.map { SimulatedDelivery(address: $0.address, policy: $0.policy, notification: $0.notification) }, now: now)
    }

    /// Hands accepted notifications to their devices, in order, under one lock.
    public func receive(_ deliveries: [SimulatedDelivery], now: Timestamp) {
        guard !deliveries.isEmpty else { return }
        let limits = self.limits
        let (events, sink) = state.withLock { state -> ([DeviceEvent], (@Sendable ([DeviceEvent]) -> Void)?) in
            let behaviour = state.behaviour
            let emitting = state.sink != nil
            let connectivity = state.defaultConnectivity
            var events: [DeviceEvent] = []
            // Each delivery is read in place through the buffer, and its device changed in place
            // in the table: copying a delivery (`for delivery in deliveries`, or `let delivery =
            // deliveries[index]`) and `devices[address, default: …]` (whose closure boxed a copy
            // of the delivery on the heap) were 40 % of delivery simulation's instructions.
            deliveries.withUnsafeBufferPointer { deliveries in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: deliveries.count) { positions in
                    // Every device is found, and its rings' next slots read, before any delivery
                    // is applied, in loops that do little else. A device last touched a thousand
                    // deliveries ago is a chain of cache misses (index slot, device, ring
                    // headers, slots); one device at a time they stalled each delivery in turn,
                    // while here the processor overlaps those of consecutive devices.
                    state.devices.positions(of: deliveries, into: positions) { delivery in
                        SimulatedDevice(
                            address: delivery.address, policy: delivery.policy, connectivity: connectivity, limits: limits, now: now)
                    }
                    var warmed: UInt8 = 0
                    for index in deliveries.indices { warmed ^= state.devices.warmNextSlots(at: positions[index]) }
                    state.warmedBytes = warmed
                    for index in deliveries.indices {
                        let position = positions[index]
                        state.devices[position].receive(
                            deliveries[index].notification, now: now, policy: deliveries[index].policy, behaviour: behaviour,
                            emitting: emitting)
                        if emitting { Self.drain(&state.devices[position], into: &events) }
                    }
                }
            }
            Self.evictIfNeeded(&state, limit: limits.devices)
            Self.evictIfNeeded(&state, ledger: contentLedger, budget: limits.payloadBytes)
            return (events, state.sink)
        }
        hand(events, to: sink)
    }

    /// Sets a device's connectivity (creating it if needed) and returns it settled at `now`.
    @discardableResult
    public func setConnectivity(_ connectivity: Connectivity, for address: DeviceAddress, policy: StoragePolicy? = nil, now: Timestamp)
        -> SimulatedDevice
    {
        withDevice(address: address, policy: policy, now: now) { $0.setConnectivity(connectivity, now: now) }
    }

    /// Applies `change` to the device at `address` (created with the default connectivity if
    /// unknown; `policy` replaces its storage policy when given) under the lock, evicts beyond
    /// the device limit, hands what the device emitted to the sink, and returns the device.
    private func withDevice(
        address: DeviceAddress, policy: StoragePolicy?, now: Timestamp, _ change: (inout SimulatedDevice) -> Void
    ) -> SimulatedDevice {
        let limits = self.limits
        let result = state.withLock { state -> (SimulatedDevice, [DeviceEvent], (@Sendable ([DeviceEvent]) -> Void)?) in
            var device =
                state.devices[address]
                ?? SimulatedDevice(
                    address: address,
                    policy: policy ?? (address.service == .apns ? .apns : .fcm),
                    connectivity: state.defaultConnectivity,
                    limits: limits,
                    now: now
                )
            if let policy { device.policy = policy }
            device.behaviour = state.behaviour
            device.emitting = state.sink != nil
            change(&device)
            var events: [DeviceEvent] = []
            Self.drain(&device, into: &events)
            state.devices[address] = device
            Self.evictIfNeeded(&state, limit: limits.devices)
            return (device, events, state.sink)
        }
        hand(result.1, to: result.2)
        return result.0
    }

    /// One device, settled at `now`.
    public func device(_ address: DeviceAddress, now: Timestamp) -> SimulatedDevice? {
        let result = state.withLock { state -> (SimulatedDevice?, [DeviceEvent], (@Sendable ([DeviceEvent]) -> Void)?) in
            guard var device = state.devices[address] else { return (nil, [], nil) }
            device.behaviour = state.behaviour
            device.emitting = state.sink != nil
            device.settle(upTo: now)
            var events: [DeviceEvent] = []
            Self.drain(&device, into: &events)
            state.devices[address] = device
            return (device, events, state.sink)
        }
        hand(result.1, to: result.2)
        return result.0
    }

    /// Every device, settled at `now`, sorted by address.
    public func devices(now: Timestamp) -> [SimulatedDevice] {
        let result = state.withLock { state -> ([SimulatedDevice], [DeviceEvent], (@Sendable ([DeviceEvent]) -> Void)?) in
            let emitting = state.sink != nil
            var events: [DeviceEvent] = []
            let behaviour = state.behaviour
            state.devices.updateEach { device in
                device.behaviour = behaviour
                device.emitting = emitting
                device.settle(upTo: now)
                if emitting { Self.drain(&device, into: &events) }
            }
            return (state.devices.devices.sorted { $0.address < $1.address }, events, state.sink)
        }
        hand(result.1, to: result.2)
        return result.0
    }

    /// The user of a device displays, opens, dismisses or acts on a notification at `now`;
    /// returns the device and the notification afterwards.
    public func engage(
        _ engagement: Engagement, notificationID: String, on address: DeviceAddress, now: Timestamp, reason: String? = "by command"
    ) throws(EngagementRefusal) -> (device: SimulatedDevice, notification: DeviceNotification) {
        let result = try state.withLock {
            state throws(EngagementRefusal) -> (SimulatedDevice, DeviceNotification, [DeviceEvent], (@Sendable ([DeviceEvent]) -> Void)?) in
            guard var device = state.devices.removeValue(forKey: address) else { throw .noDevice(address) }
            device.behaviour = state.behaviour
            device.emitting = state.sink != nil
            // A refusal keeps what settling collected for the next operation to hand on.
            defer { state.devices[address] = device }
            let notification = try device.engage(engagement, notificationID: notificationID, now: now, reason: reason)
            var events: [DeviceEvent] = []
            Self.drain(&device, into: &events)
            return (device, notification, events, state.sink)
        }
        hand(result.2, to: result.3)
        return (result.0, result.1)
    }

    /// Sets whether the app may show notifications on a device (creating it if needed), and
    /// returns it settled at `now`.
    @discardableResult
    public func setPermission(
        _ permission: NotificationPermission, for address: DeviceAddress, policy: StoragePolicy? = nil, now: Timestamp
    ) -> SimulatedDevice {
        withDevice(address: address, policy: policy, now: now) { $0.setPermission(permission, now: now) }
    }

    /// Forgets one device; returns whether it existed.
    @discardableResult
    public func remove(_ address: DeviceAddress) -> Bool {
        state.withLock { $0.devices.removeValue(forKey: address) != nil }
    }

    /// Forgets every device; returns how many there were.
    @discardableResult
    public func removeAll() -> Int {
        state.withLock { state in
            let count = state.devices.count
            state.devices.removeAll()
            return count
        }
    }

    public var count: Int { state.withLock { $0.devices.count } }

    /// Beyond the payload budget, forgets the least recently active devices holding the excess
    /// and a tenth of the budget more (amortises the sort). Payloads still in flight, or shared
    /// with a device that stays, are freed later: a later delivery looks again.
    private static func evictIfNeeded(_ state: inout State, ledger: ContentLedger, budget: Int) {
        let held = ledger.heldBytes
        guard held > budget else { return }
        state.devices.removeLeastRecentlyActive(holdingAtLeast: held - budget + budget / 10)
    }

    /// Beyond the limit, forgets the least recently active tenth (amortises the sort).
    private static func evictIfNeeded(_ state: inout State, limit: Int) {
        guard state.devices.count > limit else { return }
        state.devices.removeLeastRecentlyActive(state.devices.count - limit + max(1, limit / 10))
    }
}

extension SimulatedDevice {
    /// Receives with the policy the sender's request implies (an FCM token may turn out to be
    /// an iOS one after it was first seen).
    mutating func receive(
        _ notification: borrowing SimulatedNotification, now: Timestamp, policy: StoragePolicy, behaviour: EngagementModel?,
        emitting: Bool
    ) {
        self.policy = policy
        self.behaviour = behaviour
        // Set every time: a device that emitted while a sink was set must stop collecting
        // for the outbox once it is gone.
        self.emitting = emitting
        receive(copy notification, now: now)
    }
}
