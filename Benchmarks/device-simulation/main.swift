// The delivery simulator as the gateway drives it, alone: batches of 40 deliveries (a read
// cycle's worth), 1000 APNs devices round robin, one template (its ~250-byte payload, app and
// kind shared, as the gateway's intake shares them) and a fresh 36-character apns-id string per
// delivery (the gateway parses one from each request).
//
//   Bench                 fills every device's history (40,000 batches), then prints the
//                         min / p25 / median ns per delivery over 15 timed runs of 10,000 batches
//   Bench WARM MEASURE    runs WARM + MEASURE batches and prints nothing (for instruction
//                         counting: the difference between two runs is the steady state)
import PushMockCore
import PushMockSimulation

let tokens = (0..<1000).map { index in
    let hex = String(index, radix: 16)
    return String(repeating: "0", count: 64 - hex.count) + hex
}
let payload = Array(repeating: UInt8(ascii: "x"), count: 250)
let app = "dev.pushmock.sample"
let apnsID = Array("4C1B5F0E-9A3D-4E2B-8F6A-0D9C7B2E1A35".utf8)
let simulator = DeliverySimulator()
let template = SimulatedNotification(
    id: "", app: app, sentAt: Timestamp(millisecondsSince1970: 0), priority: .high, expiry: .immediately, kind: "alert",
    payload: payload)
let batch = 40
var sequence: UInt64 = 0
var next = 0
var now = Timestamp(millisecondsSince1970: 1_700_000_000_000)

@MainActor @inline(never) func round() {
    now = now + .milliseconds(Int64(1))
    var deliveries: [SimulatedDelivery] = []
    deliveries.reserveCapacity(batch)
    for _ in 0..<batch {
        sequence += 1
        // Copied from one template, as the gateway's intake shares one payload, app and kind
        // between the pushes of a bulk send; the id, sequence and time are each push's own.
        var notification = template
        notification.id = String(decoding: apnsID, as: UTF8.self)
        notification.sequence = sequence
        notification.sentAt = now
        deliveries.append(
            SimulatedDelivery(address: DeviceAddress(service: .apns, token: tokens[next]), policy: .apns, notification: notification))
        next = (next + 1) % tokens.count
    }
    simulator.receive(deliveries, now: now)
}

let counts = CommandLine.arguments.dropFirst().compactMap { Int($0) }
if counts.count == 2 {
    for _ in 0..<(counts[0] + counts[1]) { round() }
} else {
    for _ in 0..<40_000 { round() }
    let clock = ContinuousClock()
    var samples: [Int] = []
    for _ in 0..<15 {
        let rounds = 10_000
        let elapsed = clock.measure { () -> Void in for _ in 0..<rounds { round() } }
        let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        samples.append(Int(nanoseconds / Double(rounds * batch)))
    }
    samples.sort()
    print("min \(samples[0]) p25 \(samples[samples.count / 4]) median \(samples[samples.count / 2]) ns/delivery")
}
