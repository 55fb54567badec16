import PagebenchBase

#if canImport(Glibc)
import Glibc
#endif

/// Replaces a file's contents atomically: readers see the old file or the new one, never a mix.
///
/// Writes to a temporary file in the same directory (so `rename` stays on one file system),
/// `fsync`s it, renames it over the destination, then `fsync`s the directory so the rename
/// survives a crash. On any failure the temporary file is removed and the destination is left
/// exactly as it was.
///
/// Only regular files are replaced: a path naming a directory, FIFO, socket or device is
/// refused (as root, replacing `/dev/null` would otherwise turn it into a file). A symbolic
/// link is followed: its target is replaced and the link kept. A replaced file keeps its mode.
public enum AtomicFile {
    /// What stands at a path to be written, after following symbolic links.
    enum Existing {
        case none
        /// A regular file: its resolved path and permission bits.
        case regular(path: String, mode: mode_t)
        case other(String)
    }

    /// Looks at `path`: nothing, a regular file (resolved through links), or something else.
    static func existing(_ path: String) -> Existing {
        var status = stat()
        guard stat(path, &status) == 0 else { return .none }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            var resolved = path
            if let real = realpath(path, nil) {
                resolved = String(cString: real)
                free(real)
            }
            return .regular(path: resolved, mode: status.st_mode & 0o7777)
        case S_IFDIR: return .other("a directory")
        case S_IFIFO: return .other("a FIFO (named pipe)")
        case S_IFCHR: return .other("a character device")
        case S_IFBLK: return .other("a block device")
        case S_IFSOCK: return .other("a socket")
        default: return .other("not a regular file")
        }
    }

    /// Checks, before any work, that `path` can be written the way ``write(_:to:)`` will:
    /// not something other than a regular file, and in a directory this process may create
    /// files in (or whose nearest existing ancestor it may create directories in).
    ///
    /// - Throws: ``MetricsError`` (`.outputFailed`) naming the path and what is wrong.
    public static func checkWritable(_ path: String) throws {
        var target = path
        switch existing(path) {
        case .other(let what):
            throw failure(path, "it is \(what), not a regular file", "give the path of a file to create or replace")
        case .regular(let resolved, _):
            target = resolved
        case .none:
            break
        }
        var directory = directoryOf(target)
        var status = stat()
        while stat(directory, &status) != 0 {
            guard errno == ENOENT, directory != "/", directory != "." else { break }
            directory = directoryOf(directory)
        }
        guard stat(directory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw failure(path, "'\(directory)' is not a directory", "choose a path in an existing directory")
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw failure(
                path,
                "the directory '\(directory)' is not writable (\(FileSystem.errnoDescription()))",
                "choose a writable directory"
            )
        }
    }

    /// Writes `contents` to `path` atomically, creating or replacing it (mode 0644 before
    /// umask for a new file; a replaced file keeps its mode).
    ///
    /// - Throws: ``MetricsError`` (`.outputFailed`) naming the path, the failing step and the OS
    ///   error, e.g. a missing or unwritable directory.
    public static func write(_ contents: String, to path: String) throws {
        try write(contents, to: path, beforeRename: {})
    }

    /// ``write(_:to:)`` with a hook run after the temporary file is complete and before the
    /// rename, so tests can make the write fail at its last step.
    static func write(_ contents: String, to requestedPath: String, beforeRename: () throws -> Void) throws {
        var path = requestedPath
        var mode: mode_t = 0o644
        switch existing(requestedPath) {
        case .other(let what):
            throw failure(
                requestedPath,
                "it is \(what), not a regular file",
                "give the path of a file to create or replace"
            )
        case .regular(let resolved, let existingMode):
            path = resolved
            mode = existingMode
        case .none:
            break
        }
        let directory = directoryOf(path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var template = Array("\(directory)/.\(name).tmp-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw failure(
                path,
                "cannot create a temporary file in '\(directory)' (\(FileSystem.errnoDescription()))",
                "check that the directory exists and is writable"
            )
        }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var closed = false
        do {
            defer { if !closed { close(descriptor) } }
            try writeAll(contents, to: descriptor, path: temporary)
            guard fchmod(descriptor, mode) == 0 else {
                throw failure(path, "cannot set permissions of '\(temporary)' (\(FileSystem.errnoDescription()))", nil)
            }
            guard fsync(descriptor) == 0 else {
                throw failure(path, "cannot flush '\(temporary)' to disk (\(FileSystem.errnoDescription()))", nil)
            }
            closed = true
            guard close(descriptor) == 0 else {
                throw failure(path, "cannot close '\(temporary)' (\(FileSystem.errnoDescription()))", nil)
            }
            try beforeRename()
            guard rename(temporary, path) == 0 else {
                throw failure(
                    path,
                    "cannot rename the temporary file over it (\(FileSystem.errnoDescription()))",
                    "is '\(path)' a directory, or on a read-only file system?"
                )
            }
        } catch {
            unlink(temporary)
            throw error
        }
        // Make the rename durable; failure here cannot undo it, so it is not an error.
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// Appends to `path` in place, under an exclusive `flock`, creating the file if it is
    /// missing: `addition` gets the file's current text (read under the lock) and returns what
    /// to append, or throws to append nothing. Concurrent appenders (several `pagebench run
    /// --history` at once) queue on the lock, so none loses another's rows; the addition goes
    /// in with `O_APPEND`, so it lands after whatever is there.
    ///
    /// - Throws: ``MetricsError`` (`.outputFailed`) naming the path and the failing step; a
    ///   path that is not a regular file (a directory, a FIFO, a device) is refused.
    public static func appendLocked(to path: String, _ addition: (String) throws -> String) throws {
        try withLockedAppend(path, what: "a CSV file") { descriptor, _ in
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = chunk.withUnsafeMutableBytes {
                    pread(descriptor, $0.baseAddress!, $0.count, off_t(bytes.count))
                }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw failure(path, "cannot read (\(FileSystem.errnoDescription()))", nil)
                }
                if count == 0 { break }
                bytes += chunk[..<count]
            }
            guard let existing = String(validating: bytes, as: UTF8.self) else {
                throw MetricsError.malformed(file: path, line: nil, column: nil, "the file is not UTF-8 text")
            }
            return try addition(existing)
        }
    }

    /// ``appendLocked(to:_:)`` for an appender that needs only the file's size, not its text
    /// (a report appended to `$GITHUB_STEP_SUMMARY` within GitHub's limit): nothing is read,
    /// so a file of any size costs nothing. `addition` gets the size in bytes under the lock.
    public static func appendLocked(to path: String, sizedBy addition: (Int) throws -> String) throws {
        try withLockedAppend(path, what: "a file to append to") { _, size in try addition(size) }
    }

    /// Opens `path` for appending (created if missing; only a regular file), locks it, and
    /// appends what `addition` returns for the descriptor and the file's size under the lock.
    private static func withLockedAppend(
        _ path: String,
        what: String,
        _ addition: (Int32, Int) throws -> String
    ) throws {
        let descriptor = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o644)
        guard descriptor >= 0 else {
            throw failure(
                path,
                "cannot open for appending (\(FileSystem.errnoDescription()))",
                "check that the directory exists and is writable"
            )
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw failure(path, "is not a regular file", "give the path of \(what)")
        }
        while flock(descriptor, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            throw failure(path, "cannot lock (\(FileSystem.errnoDescription()))", nil)
        }
        defer { flock(descriptor, LOCK_UN) }
        guard fstat(descriptor, &status) == 0 else {
            throw failure(path, "cannot read its size (\(FileSystem.errnoDescription()))", nil)
        }
        let text = try addition(descriptor, Int(status.st_size))
        guard !text.isEmpty else { return }
        try writeAll(text, to: descriptor, path: path)
        guard fsync(descriptor) == 0 else {
            throw failure(path, "cannot flush to disk (\(FileSystem.errnoDescription()))", nil)
        }
    }

    /// The directory part of `path` (`.` for a bare file name).
    static func directoryOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    private static func writeAll(_ contents: String, to descriptor: Int32, path: String) throws {
        var bytes = Array(contents.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw failure(path, "cannot write (\(FileSystem.errnoDescription()))", "is the disk full?")
            }
            offset += written
        }
        bytes.removeAll()
    }

    static func failure(_ path: String, _ what: String, _ fix: String?) -> MetricsError {
        MetricsError(kind: .outputFailed, file: path, message: what + (fix.map { "; " + $0 } ?? ""))
    }
}
