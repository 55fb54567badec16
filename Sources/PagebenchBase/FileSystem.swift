#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file-system calls pagebench makes itself (POSIX, no Foundation): one reader for
/// input files and `/proc` pseudo-files, one `mkdir -p`. Each layer turns a ``Failure``
/// into its own error with its own advice.
public enum FileSystem {
    /// Why a file could not be read or a directory not made.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public enum Kind: Sendable, Hashable {
            /// The path does not exist (`ENOENT`).
            case missing
            /// It exists but could not be opened or read (permissions, a directory, …).
            case unreadable
            /// A path on the way exists and is not a directory.
            case notADirectory
            /// `mkdir` failed.
            case cannotCreate
            /// The bytes are not UTF-8 text.
            case notUTF8
        }

        public let kind: Kind
        public let path: String
        /// What went wrong, with the OS error where there is one: `cannot open (Permission denied (errno 13))`.
        public let reason: String

        public var description: String { "\(path): \(reason)" }
    }

    /// Whether `path` exists; `isDirectory` tells whether it is a directory.
    public static func exists(_ path: String, isDirectory: inout Bool) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
        return true
    }

    /// Creates `path` and its missing parents (mode 0755); true when it is a directory afterwards.
    public static func makeDirectory(_ path: String) -> Bool {
        var isDirectory = false
        if exists(path, isDirectory: &isDirectory) { return isDirectory }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            guard makeDirectory(String(path[..<slash])) else { return false }
        }
        return mkdir(path, 0o755) == 0 || errno == EEXIST
    }

    /// Creates the directory `path` is in (and its missing parents) if it is missing.
    ///
    /// - Throws: ``Failure`` (`notADirectory`, `cannotCreate`) naming the directory.
    public static func createParentDirectory(of path: String) throws(Failure) {
        guard let slash = path.lastIndex(of: "/") else { return }
        let directory = String(path[..<slash])
        guard !directory.isEmpty else { return }
        var isDirectory = false
        if exists(directory, isDirectory: &isDirectory) {
            guard isDirectory else {
                throw Failure(kind: .notADirectory, path: path, reason: "'\(directory)' exists but is not a directory")
            }
            return
        }
        guard makeDirectory(directory) else {
            throw Failure(
                kind: .cannotCreate, path: path,
                reason: "cannot create the directory '\(directory)' (\(errnoDescription())); create it or choose another path")
        }
    }

    /// Every byte of `path`, read until end of file (so `/proc` files, which report a size
    /// of 0, read whole).
    ///
    /// - Throws: ``Failure`` (`missing`, `unreadable`).
    public static func readBytes(_ path: String) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw code == ENOENT
                ? Failure(kind: .missing, path: path, reason: "no such file")
                : Failure(kind: .unreadable, path: path, reason: "cannot open (\(errnoDescription(code)))")
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(kind: .unreadable, path: path, reason: "cannot read (\(errnoDescription()))")
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return bytes
    }

    /// The UTF-8 text of `path`.
    ///
    /// - Throws: ``Failure`` (`missing`, `unreadable`, `notUTF8`).
    public static func readText(_ path: String) throws(Failure) -> String {
        let bytes = try readBytes(path)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Failure(kind: .notUTF8, path: path, reason: "not UTF-8 text; save it as UTF-8")
        }
        return text
    }

    /// The current `errno` as text, e.g. "Permission denied (errno 13)".
    public static func errnoDescription(_ code: Int32 = errno) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }
}
