extension QueryPager where Model == PaginationOutput<InitialSource.Response, PaginatedSource.Response> {
    /// A multi-query pager whose output is the pages themselves.
    public convenience init(
        initialSource: InitialSource,
        initialRequest: InitialSource.Request,
        paginatedSource: PaginatedSource,
        retryPolicy: RetryPolicy = .none,
        extractInitialPageInfo: @escaping @Sendable (InitialSource.Response) -> Info,
        extractPageInfo: @escaping @Sendable (PaginatedSource.Response) -> Info,
        pageResolver: @escaping @Sendable (Info, PaginationDirection) -> PaginatedSource.Request?
    ) {
        self.init(
            initialSource: initialSource,
            initialRequest: initialRequest,
            paginatedSource: paginatedSource,
            retryPolicy: retryPolicy,
            extractInitialPageInfo: extractInitialPageInfo,
            extractPageInfo: extractPageInfo,
            pageResolver: pageResolver,
            transform: { $0 }
        )
    }
}

extension QueryPager where InitialSource == PaginatedSource {
    /// A single-query pager (one source and request type for every page) whose output is
    /// transformed to `Model`.
    public convenience init(
        source: InitialSource,
        initialRequest: InitialSource.Request,
        retryPolicy: RetryPolicy = .none,
        extractPageInfo: @escaping @Sendable (InitialSource.Response) -> Info,
        pageResolver: @escaping @Sendable (Info, PaginationDirection) -> InitialSource.Request?,
        transform: @escaping @Sendable (Output) throws -> Model
    ) {
        self.init(
            initialSource: source,
            initialRequest: initialRequest,
            paginatedSource: source,
            retryPolicy: retryPolicy,
            extractInitialPageInfo: extractPageInfo,
            extractPageInfo: extractPageInfo,
            pageResolver: pageResolver,
            transform: transform
        )
    }
}

extension QueryPager
where InitialSource == PaginatedSource, Model == PaginationOutput<InitialSource.Response, InitialSource.Response> {
    /// A single-query pager whose output is the pages themselves.
    public convenience init(
        source: InitialSource,
        initialRequest: InitialSource.Request,
        retryPolicy: RetryPolicy = .none,
        extractPageInfo: @escaping @Sendable (InitialSource.Response) -> Info,
        pageResolver: @escaping @Sendable (Info, PaginationDirection) -> InitialSource.Request?
    ) {
        self.init(
            initialSource: source,
            initialRequest: initialRequest,
            paginatedSource: source,
            retryPolicy: retryPolicy,
            extractInitialPageInfo: extractPageInfo,
            extractPageInfo: extractPageInfo,
            pageResolver: pageResolver,
            transform: { $0 }
        )
    }
}
