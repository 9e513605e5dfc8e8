import Foundation

#if canImport(Glibc)
import Glibc
// `struct stat` and its members reach Swift through CoreFoundation's module on Linux.
import CoreFoundation
#elseif canImport(Darwin)
import Darwin
#endif

/// The files the control API may read when a request body names one (`routesFile`,
/// `policyFile`, an expectation's `deepLink.routes`): only regular files under the directories
/// the server was told about (`pushmock serve --checks-dir`,
/// ``GatewayConfiguration/checksDirectories``), at most ``maximumFileBytes`` long.
///
/// Paths are resolved the way the kernel would open them — relative to the gateway's working
/// directory, symbolic links and `..` followed (`realpath(3)`) — before they are compared with
/// the equally resolved directories. A path outside gets 403 whether or not the file exists, so
/// the control API cannot be used to probe the machine's files.
package struct ControlFileAccess: Sendable {
    /// Files larger than this are refused with 413 before they are read (a 2 GB file named by
    /// mistake must not stall an event loop). 10 MiB.
    package static let maximumFileBytes = 10 << 20

    /// The directories as configured (relative ones against the working directory).
    package let directories: [String]
    package let maximumBytes: Int

    package init(directories: [String], maximumBytes: Int = Self.maximumFileBytes) {
        self.directories = directories
        self.maximumBytes = maximumBytes
    }

    /// The contents of the file at `path`, named by the request member `member` (for messages).
    /// `nil` when the path lies inside an allowed directory but is not a readable regular file
    /// (the caller answers as for any unreadable definition). Throws 403 for a path outside
    /// every allowed directory and 413 for a file over the limit.
    package func read(_ path: String, member: String) throws(ControlAPIError) -> [UInt8]? {
        let resolved = Self.resolve(path)
        let allowed = directories.compactMap { Self.realPath(Self.absolute($0)) }
        guard allowed.contains(where: { Self.path(resolved.path, isInside: $0) }) else {
            let shown = directories.map { Self.realPath(Self.absolute($0)) ?? Self.absolute($0) }
            let list = shown.isEmpty ? "none configured" : shown.joined(separator: ", ")
            throw ControlAPIError(
                403,
                "\(member): \(path) is not under a directory the gateway reads files from (--checks-dir: \(list)); put the file there or send the definition inline"
            )
        }
        // Something on the way does not exist: nothing to read (inside an allowed directory,
        // saying so reveals nothing).
        guard resolved.exists else { return nil }
        return try readRegularFile(resolved.path, named: path, member: member)
    }

    private func readRegularFile(_ path: String, named: String, member: String) throws(ControlAPIError) -> [UInt8]? {
        // The resolved path has no symbolic links; O_NOFOLLOW keeps one swapped in meanwhile
        // from being followed, O_NONBLOCK keeps a FIFO from blocking the open.
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        guard Int(status.st_size) <= maximumBytes else {
            throw ControlAPIError(
                413, "\(member): \(named) is \(status.st_size) bytes; the gateway reads files of at most \(maximumBytes) bytes")
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                systemRead(descriptor, buffer.baseAddress! + count, buffer.count - count)
            }
            if read < 0, errno == EINTR { continue }
            guard read >= 0 else { return nil }
            if read == 0 { break }
            count += read
            if count > maximumBytes {
                throw ControlAPIError(413, "\(member): \(named) is larger than \(maximumBytes) bytes, the most the gateway reads")
            }
        }
        return Array(bytes[..<count])
    }

    /// `path` resolved: the longest prefix that exists through `realpath(3)`, the rest (which
    /// does not exist) appended lexically. `exists` is whether the whole path resolved.
    static func resolve(_ path: String) -> (path: String, exists: Bool) {
        var components = absolute(path).split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var missing: [String] = []
        while true {
            if let real = realPath("/" + components.joined(separator: "/")) {
                return (appending(missing, to: real), missing.isEmpty)
            }
            guard let last = components.popLast() else { return (appending(missing, to: "/"), false) }
            missing.insert(last, at: 0)
        }
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func appending(_ components: [String], to base: String) -> String {
        var parts = base.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        for component in components {
            switch component {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(component)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    static func path(_ path: String, isInside directory: String) -> Bool {
        directory == "/" || path == directory || path.hasPrefix(directory + "/")
    }
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(descriptor, buffer, count)
    #else
    Darwin.read(descriptor, buffer, count)
    #endif
}
