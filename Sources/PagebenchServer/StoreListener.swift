import HummingbirdCore
import Logging
import NIOCore
import NIOExtras
import NIOPosix
import ServiceLifecycle

/// The store's listener: HummingbirdCore's `Server` run loop (each accepted connection
/// handled by a child task of one task group, graceful shutdown through NIOExtras'
/// quiescing helper), with the accepting sized for a crowd.
///
/// HummingbirdCore's `Server` hands accepted connections to its loop through an async
/// sequence that stops accepting once 10 wait, and reads 4 connections per wake-up of the
/// listening socket. Its loop is a task on the cooperative pool, behind every request being
/// answered there, so under load it took 10 connections a round: with 10,000 busy
/// connections the kernel's accept queue held 2,762–4,097 connections from 5 s to the end of
/// a 25 s phase, the server never held more than 6,637 of the 10,000 the client had opened
/// (5,525 listen overflows in one run), and `/health` probes' connections waited there past
/// their 10 s timeout (issue 38, results/crowd.md). Here the sequence buffers up to
/// ``acceptedWaitingHigh`` connections, and the socket is read ``acceptsPerRead`` at a time, so
/// one round of the loop takes every connection accepted since the last.
struct StoreListener<ChildChannel: ServerChildChannel>: Service {
    let childChannel: ChildChannel
    let host: String
    let port: Int
    let group: any EventLoopGroup
    let logger: Logger
    let onListening: @Sendable (_ port: Int) async -> Void

    /// Accepted connections waiting for the loop before the socket stops being read, and
    /// below which it is read again.
    static var acceptedWaitingHigh: Int { 4_096 }
    static var acceptedWaitingLow: Int { 1_024 }
    /// Connections accepted per wake-up of the listening socket (NIO's default: 4).
    static var acceptsPerRead: UInt { 256 }

    func run() async throws {
        let quiescing = ServerQuiescingHelper(group: group)
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: Int32(StoreServer.listenBacklog))
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(ChannelOptions.maxMessagesPerRead, value: Self.acceptsPerRead)
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
            .bind(
                host: host,
                port: port,
                serverBackPressureStrategy: .init(
                    lowWatermark: Self.acceptedWaitingLow,
                    highWatermark: Self.acceptedWaitingHigh
                )
            ) { [childChannel, logger] channel in
                childChannel.setup(channel: channel, logger: logger)
            }
        await withGracefulShutdownHandler {
            await onListening(server.channel.localAddress?.port ?? port)
            await withDiscardingTaskGroup { connections in
                do {
                    try await server.executeThenClose { inbound in
                        for try await connection in inbound {
                            connections.addTask { [childChannel, logger] in
                                await childChannel.handle(value: connection, logger: logger)
                            }
                        }
                    }
                } catch {
                    logger.error("accepting connections failed: \(error)")
                }
            }
        } onGracefulShutdown: {
            // Stops accepting and lets each connection finish its request in flight; the
            // loop above ends when the listener has closed and every connection has.
            quiescing.initiateShutdown(promise: nil)
        }
    }
}
