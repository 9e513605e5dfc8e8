import Foundation
import PushMockCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file's content all at once: the bytes go to a temporary file in the same
/// directory, which is flushed to disk and then renamed over the target. A reader (or a test
/// process killed halfway) sees the old file or the new one, never a truncated mix.
enum AtomicFile {
    static func write(_ bytes: [UInt8], to path: String) throws(GoldenError) {
        let directory = PathText.directory(of: path)
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw GoldenError(
                    .fileSystem, "Could not create the directory \(directory) for golden file \(path): \(reason: error)", path: path)
            }
        }
        let name = PathText.lastComponent(of: path)
        let temporaryPath =
            (directory.isEmpty ? "" : directory.hasSuffix("/") ? directory : directory + "/")
            + ".\(name).\(getpid()).\(UInt32.random(in: .min ... .max)).tmp"

        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw failure("create a temporary file \(temporaryPath)", path: path)
        }
        var succeeded = false
        defer {
            if !succeeded { unlink(temporaryPath) }
        }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                systemWrite(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                let error = failure("write \(temporaryPath)", path: path)
                close(descriptor)
                throw error
            }
            written += result
        }
        if fsync(descriptor) != 0 {
            let error = failure("flush \(temporaryPath)", path: path)
            close(descriptor)
            throw error
        }
        if close(descriptor) != 0 {
            throw failure("close \(temporaryPath)", path: path)
        }
        if rename(temporaryPath, path) != 0 {
            throw failure("rename \(temporaryPath) to \(path)", path: path)
        }
        succeeded = true
    }

    private static func failure(_ operation: String, path: String) -> GoldenError {
        let code = errno
        return GoldenError(.fileSystem, "Could not \(operation): \(String(cString: strerror(code))) (errno \(code)).", path: path)
    }
}

/// `write(2)`, named apart from Swift's `write` overloads in scope.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.write(descriptor, buffer, count)
    #elseif canImport(Musl)
    Musl.write(descriptor, buffer, count)
    #else
    Glibc.write(descriptor, buffer, count)
    #endif
}
