/// What a phase's pagers completed, counted live as it happened (H7): pages (with their items
/// and evaluated bytes) as each one was counted, drains as each one ended. The time series,
/// the progress line and a stage's rates are differences of two readings of these.
public struct CompletedWork: Sendable, Equatable {
    /// Pages completed.
    public var pages = 0
    /// Items those pages returned.
    public var items = 0
    /// Bytes those pages evaluated (S3).
    public var scannedBytes = 0
    /// Drains that ended as the `drains` column counts them: drained, stopped after K pages,
    /// or abandoned.
    public var drains = 0
    /// Drains that ended in any way, failed and cancelled ones included.
    public var endedDrains = 0

    public init(pages: Int = 0, items: Int = 0, scannedBytes: Int = 0, drains: Int = 0, endedDrains: Int = 0) {
        self.pages = pages
        self.items = items
        self.scannedBytes = scannedBytes
        self.drains = drains
        self.endedDrains = endedDrains
    }

    /// The sum of two readings (of two pagers).
    public static func + (lhs: CompletedWork, rhs: CompletedWork) -> CompletedWork {
        CompletedWork(
            pages: lhs.pages + rhs.pages,
            items: lhs.items + rhs.items,
            scannedBytes: lhs.scannedBytes + rhs.scannedBytes,
            drains: lhs.drains + rhs.drains,
            endedDrains: lhs.endedDrains + rhs.endedDrains
        )
    }

    /// What was completed between an `earlier` reading and this one.
    public func since(_ earlier: CompletedWork) -> CompletedWork {
        CompletedWork(
            pages: pages - earlier.pages,
            items: items - earlier.items,
            scannedBytes: scannedBytes - earlier.scannedBytes,
            drains: drains - earlier.drains,
            endedDrains: endedDrains - earlier.endedDrains
        )
    }
}
