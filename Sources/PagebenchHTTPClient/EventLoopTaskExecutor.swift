import NIOCore

/// A `TaskExecutor` that runs jobs on one NIO event loop (NIO 2.101 makes event loops
/// serial executors for actors, not task executors).
///
/// A task that pages through ``HTTPStoreSource`` with this as its executor preference
/// (`withTaskExecutorPreference`, or `group.addTask(executorPreference:)`) runs on the
/// same thread as its connection: the request is written without handing it to the event
/// loop and the response resumes the task without waking another thread — no thread hop
/// per request. ``HTTPStoreSource/taskExecutor(_:)`` gives one per event loop.
package final class EventLoopTaskExecutor: TaskExecutor {
    /// The loop the jobs run on.
    package let eventLoop: any EventLoop

    package init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
