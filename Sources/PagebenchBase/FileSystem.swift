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
            /// A directory was given where a file was expected.
            case directory
            /// It holds more bytes than the reader accepts.
            case tooLarge
            /// A FIFO, a device or a socket, not a regular file: a FIFO may block the reader
            /// for ever, and a device such as `/dev/zero` never ends.
            case notARegularFile
        }

        public let kind: Kind
        public let path: String
        /// What went wrong, said for a reader: `permission denied: this user may not read it; check its permissions`.
        public let reason: String

        public var description: String { "\(path): \(reason)" }

        public init(kind: Kind, path: String, reason: String) {
            self.kind = kind
            self.path = path
            self.reason = reason
        }
    }

    /// Whether `path` exists; `isDirectory` tells whether it is a directory.
    public static func exists(_ path: String, isDirectory: inout Bool) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
        return true
    }

    /// Whether `path` is a directory (false: anything else that exists).
    ///
    /// - Throws: ``Failure``: `missing` when nothing is there, `unreadable` when a directory
    ///   on the way may not be searched (`EACCES`), which is not the same as missing.
    public static func isDirectory(_ path: String) throws(Failure) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR:
                throw Failure(kind: .missing, path: path, reason: "no such file or directory")
            case EACCES:
                throw Failure(
                    kind: .unreadable,
                    path: path,
                    reason:
                        "permission denied: this user may not search a directory on the way to it; check their permissions"
                )
            default:
                throw Failure(kind: .unreadable, path: path, reason: "cannot be reached (\(errnoDescription(code)))")
            }
        }
        return (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The names in the directory `path` (not `.` and `..`), in no particular order.
    ///
    /// - Throws: ``Failure`` (`unreadable`) when it cannot be listed, naming why.
    public static func directoryEntries(_ path: String) throws(Failure) -> [String] {
        guard let directory = opendir(path) else {
            let code = errno
            throw code == EACCES
                ? Failure(
                    kind: .unreadable,
                    path: path,
                    reason: "permission denied: this user may not list the directory; check its permissions"
                )
                : Failure(
                    kind: .unreadable,
                    path: path,
                    reason: "cannot list the directory (\(errnoDescription(code)))"
                )
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
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
                kind: .cannotCreate,
                path: path,
                reason:
                    "cannot create the directory '\(directory)' (\(errnoDescription())); create it or choose another path"
            )
        }
    }

    /// The most bytes a file is read whole with when its reader names no cap of its own
    /// (scenarios, `--config`, `--thresholds`, baselines, reports): 256 MiB.
    public static let maximumInputBytes = 256 << 20

    /// Every byte of the regular file `path`, read until end of file (so `/proc` files,
    /// which report a size of 0, read whole), but no more than `maximumBytes`: a file that
    /// holds more is refused once that many have been read.
    ///
    /// - Throws: ``Failure`` (`missing`, `unreadable`, `directory`, `notARegularFile`, `tooLarge`).
    public static func readBytes(_ path: String, maximumBytes: Int = maximumInputBytes) throws(Failure) -> [UInt8] {
        let file = try InputFile(path)
        var bytes: [UInt8] = []
        // One byte past the cap is asked for, to tell a file of exactly `maximumBytes` from a longer one.
        while try file.read(
            appendingTo: &bytes,
            atMost: maximumBytes - bytes.count >= 65_536 ? 65_536 : maximumBytes - bytes.count + 1
        ) {
            guard bytes.count <= maximumBytes else {
                throw Failure(kind: .tooLarge, path: path, reason: "holds more than the \(maximumBytes) bytes accepted")
            }
        }
        return bytes
    }

    /// A file open for reading in pieces, closed when it goes away: how a large input is
    /// read without holding all of it.
    public struct InputFile: ~Copyable {
        public let path: String
        private let descriptor: Int32

        /// Opens the regular file `path` for reading. The open does not wait for a writer
        /// (`O_NONBLOCK`, so a FIFO cannot block it); anything but a regular file is refused.
        ///
        /// - Throws: ``Failure``: `missing` (ENOENT), `directory` (a directory, not a file),
        ///   `notARegularFile` (a FIFO, a device, a socket), `unreadable` (permissions and
        ///   anything else), each naming the path.
        public init(_ path: String) throws(Failure) {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { throw FileSystem.openFailure(path, code: errno) }
            var info = stat()
            guard fstat(descriptor, &info) == 0 else {
                let code = errno
                close(descriptor)
                throw Failure(kind: .unreadable, path: path, reason: "cannot be read (\(errnoDescription(code)))")
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                break
            case S_IFDIR:
                close(descriptor)
                throw Failure(
                    kind: .directory,
                    path: path,
                    reason: "is a directory, not a file; give the path of a file"
                )
            case let type:
                close(descriptor)
                throw Failure(
                    kind: .notARegularFile,
                    path: path,
                    reason: "is \(FileSystem.typeName(type)), not a regular file; give the path of a file"
                )
            }
            // Reads block again (a regular file never waits, but a slow disk is no error).
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
            self.path = path
            self.descriptor = descriptor
        }

        deinit { close(descriptor) }

        /// Appends up to `count` more bytes to `bytes`, fewer only at the end of the file.
        /// Returns false once the end of the file is reached (nothing more will come).
        ///
        /// - Throws: ``Failure`` (`unreadable`, `directory`) naming the path.
        public func read(appendingTo bytes: inout [UInt8], atMost count: Int) throws(Failure) -> Bool {
            let start = bytes.count
            var filled = 0
            var failure: Int32 = 0
            var atEnd = false
            // One zero-filled array appended (a memcpy): appending `repeatElement` went byte
            // by byte in a debug build, 15 s of CPU for the 64 MiB a capped read may take.
            bytes.append(contentsOf: [UInt8](repeating: 0, count: count))
            bytes.withUnsafeMutableBytes { buffer in
                while filled < count {
                    let got = readDescriptor(descriptor, buffer.baseAddress! + start + filled, count - filled)
                    if got < 0 {
                        if errno == EINTR { continue }
                        failure = errno
                        return
                    }
                    if got == 0 {
                        atEnd = true
                        return
                    }
                    filled += got
                }
            }
            bytes.removeLast(count - filled)
            if failure != 0 {
                throw failure == EISDIR
                    ? Failure(
                        kind: .directory,
                        path: path,
                        reason: "is a directory, not a file; give the path of a file"
                    )
                    : Failure(kind: .unreadable, path: path, reason: "cannot be read (\(errnoDescription(failure)))")
            }
            return !atEnd
        }
    }

    /// What a file of type `type` (`st_mode & S_IFMT`) is, in words: `a FIFO (named pipe)`.
    static func typeName(_ type: mode_t) -> String {
        switch type {
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    /// Why `open(path)` failed, said plainly.
    static func openFailure(_ path: String, code: Int32) -> Failure {
        switch code {
        case ENOENT:
            Failure(kind: .missing, path: path, reason: "no such file")
        case EACCES, EPERM:
            Failure(
                kind: .unreadable,
                path: path,
                reason: "permission denied: this user may not read it; check its permissions"
            )
        case ENOTDIR:
            Failure(kind: .missing, path: path, reason: "no such file (a directory on the way is a file)")
        default:
            Failure(kind: .unreadable, path: path, reason: "cannot be opened (\(errnoDescription(code)))")
        }
    }

    /// The UTF-8 text of `path`, of at most `maximumBytes` (``readBytes(_:maximumBytes:)``).
    ///
    /// - Throws: ``Failure`` (`missing`, `unreadable`, `notUTF8`, `tooLarge`).
    public static func readText(_ path: String, maximumBytes: Int = .max) throws(Failure) -> String {
        let bytes = try readBytes(path, maximumBytes: maximumBytes)
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

/// `read(2)`, under a name the methods called `read` do not shadow.
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
