import NIOCore

/// One ``OpenSSLContext`` per event loop of a group, made up front and then only read on
/// its own loop: no OpenSSL object is shared between threads, and a connection's setup on
/// the event loop loads no file.
struct PerLoopContexts: Sendable {
    private let byLoop: [ObjectIdentifier: NIOLoopBoundBox<OpenSSLContext>]
    private let make: @Sendable () throws(TLSError) -> OpenSSLContext

    /// Makes a context for every loop of `group` with `make` (which validates the
    /// configuration: its error is thrown here, before any connection).
    init(group: any EventLoopGroup, make: @escaping @Sendable () throws(TLSError) -> OpenSSLContext) throws(TLSError) {
        var byLoop: [ObjectIdentifier: NIOLoopBoundBox<OpenSSLContext>] = [:]
        for loop in group.makeIterator() {
            byLoop[ObjectIdentifier(loop)] = NIOLoopBoundBox.makeBoxSendingValue(
                try make(),
                as: OpenSSLContext.self,
                eventLoop: loop
            )
        }
        if byLoop.isEmpty { _ = try make() }
        self.byLoop = byLoop
        self.make = make
    }

    /// The context of `eventLoop`; call on that loop. A loop outside the group gets a new
    /// context (correct, but it loads the files again).
    func context(on eventLoop: any EventLoop) throws(TLSError) -> OpenSSLContext {
        if let box = byLoop[ObjectIdentifier(eventLoop)] { return box.value }
        return try make()
    }
}
