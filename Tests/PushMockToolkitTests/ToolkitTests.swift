import PushMockToolkit
import Testing

@Suite("Toolkit")
struct ToolkitTests {
    @Test("format version")
    func version() {
        #expect(PushMockToolkit.formatVersion == 1)
    }
}
