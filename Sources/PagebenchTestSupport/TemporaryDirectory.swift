import Foundation

/// A fresh, empty directory in the system's temporary directory, named `PREFIX-UUID`; the
/// caller removes it (`defer { try? FileManager.default.removeItem(at: directory) }`).
package func temporaryDirectory(_ prefix: String = "pagebench-test") throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

/// ``temporaryDirectory(_:)`` as a path, for tests that build file names by appending to it.
package func temporaryDirectoryPath(_ prefix: String = "pagebench-test") throws -> String {
    try temporaryDirectory(prefix).path
}
