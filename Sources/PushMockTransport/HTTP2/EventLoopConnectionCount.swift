import NIOCore
@_spi(Locking) import PushMockCore

/// How many HTTP/2 server connections each event loop serves right now.
///
/// A connection that is alone on its loop answers a large read batch in runs (see
/// ``HTTP2ServerConfiguration/earlyReplyBatchLimit``): while its loop works through the batch
/// nothing else is waiting for it, and its client — whose streams are all in the batch — can
/// send more once the first answers are out. With other connections on the loop, their reads
/// keep it busy anyway, and the extra flushes (and the responder's per-batch work, such as the
/// gateway's journal write) of runs only cost CPU.
///
/// Keyed by the loop's identity; the entry goes when its last connection does. Touched when a
/// connection opens or closes and read once per read batch.
enum EventLoopConnectionCount {
    private static let counts = SanitizerVisibleMutex<[ObjectIdentifier: Int]>([:])

    static func opened(on loop: any EventLoop) {
        counts.withLock { $0[ObjectIdentifier(loop), default: 0] += 1 }
    }

    static func closed(on loop: any EventLoop) {
        counts.withLock { counts in
            let key = ObjectIdentifier(loop)
            guard let count = counts[key] else { return }
            counts[key] = count > 1 ? count - 1 : nil
        }
    }

    static func count(on loop: any EventLoop) -> Int {
        counts.withLock { $0[ObjectIdentifier(loop)] ?? 0 }
    }
}
