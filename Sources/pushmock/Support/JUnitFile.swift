import Foundation
import PushMockCore

/// `--junit PATH` of the check commands (`expect`, `check`, `golden verify`, `replay`): `-` is
/// standard output, anything else a file whose missing directories are created first — CI
/// scripts name `reports/junit/push.xml` before anything made `reports/`.
enum JUnitFile {
    /// Whether the report goes to standard output (the command then prints nothing else there).
    static func isStandardOutput(_ path: String?) -> Bool { path == "-" }

    /// Writes `xml` to `path`; the error says what the file system said.
    static func write(_ xml: String, to path: String) throws(CheckError) {
        if isStandardOutput(path) {
            print(xml, terminator: xml.hasSuffix("\n") ? "" : "\n")
            return
        }
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            // An atomic write would fail on the rename with a less helpful reason.
            throw CheckError("cannot write \(path): it is a directory (--junit names the report file)")
        }
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(xml.utf8).write(to: url, options: .atomic)
        } catch {
            throw CheckError("cannot write \(path): \(reason: error)")
        }
    }
}
