import Foundation

/// A fresh directory under the system temporary directory, removed when the value is
/// deinitialised, so each test works on its own files.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-auth-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The absolute path of `name` inside the directory.
    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    func write(_ text: String, to name: String) throws {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
    }

    func read(_ name: String) throws -> String {
        try String(contentsOfFile: path(name), encoding: .utf8)
    }

    func readBytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }
}
