@_spi(Locking) import PushMockCore
package import PushMockRecording
import Synchronization

/// A check that adds findings to each accepted notification's record at intake, as lint does
/// (payload contracts, installed by `PushMockCheckAPI`, so the gateway needs no toolkit). It
/// runs on the event loop before the record is committed, only for exchanges that reach a
/// device: keep it cheap.
package protocol RecordAnnotator: Sendable {
    /// What it is called in listings and when it is replaced or removed (`contracts`).
    var name: String { get }
    /// Adds its findings to `record` (to `notification.lint`, so every reader of findings —
    /// queries, the inbox, golden files with lint — sees them).
    func annotate(_ record: inout ExchangeRecord)
}

/// The annotators in force, by name. Read once per read batch; with none installed that read
/// is one atomic load.
package final class RecordAnnotators: Sendable {
    private let installed = SanitizerVisibleMutex<[(name: String, annotator: any RecordAnnotator)]>([])
    private let count = Atomic<Int>(0)

    package init(_ annotators: [any RecordAnnotator] = []) {
        for annotator in annotators { install(annotator) }
    }

    /// Installs `annotator`, replacing one of the same name.
    package func install(_ annotator: any RecordAnnotator) {
        installed.withLock { list in
            list.removeAll { $0.name == annotator.name }
            list.append((annotator.name, annotator))
            count.store(list.count, ordering: .releasing)
        }
    }

    /// Removes the annotator called `name`; whether there was one.
    @discardableResult
    package func remove(named name: String) -> Bool {
        installed.withLock { list in
            let before = list.count
            list.removeAll { $0.name == name }
            count.store(list.count, ordering: .releasing)
            return list.count != before
        }
    }

    /// The annotator called `name`, if installed.
    package func annotator(named name: String) -> (any RecordAnnotator)? {
        installed.withLock { list in list.first { $0.name == name }?.annotator }
    }

    /// Everything installed, in installation order.
    package var current: [any RecordAnnotator] {
        guard count.load(ordering: .acquiring) > 0 else { return [] }
        return installed.withLock { list in list.map(\.annotator) }
    }
}
