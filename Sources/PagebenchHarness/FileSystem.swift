#if canImport(Glibc)
import Glibc
#endif

/// The few file-system calls the harness makes itself.
enum FileSystem {
    static func exists(_ path: String, isDirectory: inout Bool) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
        return true
    }

    /// Creates `path` and its missing parents (mode 0755).
    static func makeDirectory(_ path: String) -> Bool {
        var isDirectory = false
        if exists(path, isDirectory: &isDirectory) { return isDirectory }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            guard makeDirectory(String(path[..<slash])) else { return false }
        }
        return mkdir(path, 0o755) == 0 || errno == EEXIST
    }
}
