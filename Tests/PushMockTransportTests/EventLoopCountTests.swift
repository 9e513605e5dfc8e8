import NIOCore
import NIOPosix
import PushMockTransport
import Testing

@Suite("Event loops: one per CPU the process may run on")
struct EventLoopCountTests {
    @Test(
        "Linux CPU lists are counted",
        arguments: [
            ("0", 1), ("1", 1), ("0-1", 2), ("0-3,8,10-11", 7), (" 0-7\t", 8), ("2,4,6", 3),
        ] as [(String, Int)])
    func counts(list: String, count: Int) {
        #expect(EventLoopCount.cpuCount(inList: Substring(list)) == count)
    }

    @Test("anything else is not a CPU list", arguments: ["", "a", "3-1", "1-2-3", "1,,2", "-1"])
    func rejects(list: String) {
        #expect(EventLoopCount.cpuCount(inList: Substring(list)) == nil)
    }

    @Test("this process's mask is read, and the default never exceeds it")
    func thisProcess() throws {
        let allowed = try #require(EventLoopCount.affinityCPUCount)
        #expect(allowed >= 1)
        #expect(EventLoopCount.default <= allowed)
        #expect(EventLoopCount.default >= 1)
    }

    @Test("the shared group has one loop per CPU the process may use (NIO's singleton when that is all of them)")
    func sharedGroup() throws {
        let group = EventLoopCount.sharedGroup
        var loops = 0
        for _ in group.makeIterator() { loops += 1 }
        #expect(loops == EventLoopCount.default)
        #expect((group === MultiThreadedEventLoopGroup.singleton) == (EventLoopCount.default == System.coreCount))
        #expect(EventLoopCount.sharedGroup === group)
    }
}
