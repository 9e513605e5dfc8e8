/// Path arithmetic on plain strings (`NSString`'s path methods are not bridged on Linux).
enum PathText {
    /// Everything before the last `/` (`""` for a bare name, `"/"` for a file in the root).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// Everything after the last `/`.
    static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
