import PagebenchPage

/// Why a target's response ended a drain (T2): never a page, never the end of a drain.
/// Messages name the request (method and URL, never a header value) and what was wrong.
///
/// The target's own, finer account of a failure: ``TargetSource`` counts it by ``Kind`` (the
/// page contract's ``PagebenchPage/PageError/Cause``, the `target_errors_*` columns) and
/// throws the page contract's ``PageError`` of its kind (the harness's `errors_other`).
package struct TargetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind, counted per run (docs/cli.md, "Errors, retries and TLS"): the page
    /// contract's finer cause of a target's failure (``PagebenchPage/PageError/Cause``), whose
    /// ``PagebenchPage/PageError/Cause/pageErrorKind`` is the one classification.
    package typealias Kind = PageError.Cause

    package let kind: Kind
    package let message: String
    /// The HTTP status, when a response arrived.
    package let status: Int?

    package init(_ kind: Kind, _ message: String, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
    }

    package var description: String { message }
}

extension TargetError: PageFailure {
    package var pageErrorKind: PageError.Kind { kind.pageErrorKind }
}
