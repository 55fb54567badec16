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
public enum AtomicFile {
    /// Writes `contents` to `path` atomically, creating or replacing it (mode 0644 before umask).
    ///
    /// - Throws: ``MetricsError`` (`.outputFailed`) naming the path, the failing step and the OS
    ///   error, e.g. a missing or unwritable directory.
    public static func write(_ contents: String, to path: String) throws {
        try write(contents, to: path, beforeRename: {})
    }

    /// ``write(_:to:)`` with a hook run after the temporary file is complete and before the
    /// rename, so tests can make the write fail at its last step.
    static func write(_ contents: String, to path: String, beforeRename: () throws -> Void) throws {
        let directory = directoryOf(path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var template = Array("\(directory)/.\(name).tmp-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw failure(
                path, "cannot create a temporary file in '\(directory)' (\(FileSystem.errnoDescription()))",
                "check that the directory exists and is writable")
        }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var closed = false
        do {
            defer { if !closed { close(descriptor) } }
            try writeAll(contents, to: descriptor, path: temporary)
            guard fchmod(descriptor, 0o644) == 0 else {
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
                    path, "cannot rename the temporary file over it (\(FileSystem.errnoDescription()))",
                    "is '\(path)' a directory, or on a read-only file system?")
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
        let descriptor = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o644)
        guard descriptor >= 0 else {
            throw failure(
                path, "cannot open for appending (\(FileSystem.errnoDescription()))",
                "check that the directory exists and is writable")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw failure(path, "is not a regular file", "give the path of a CSV file")
        }
        while flock(descriptor, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            throw failure(path, "cannot lock (\(FileSystem.errnoDescription()))", nil)
        }
        defer { flock(descriptor, LOCK_UN) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, $0.count, off_t(bytes.count)) }
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
        let text = try addition(existing)
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
