import HTTPTypes
import HummingbirdCore
import PagebenchStore
import PagebenchWire

extension StoreHTTPErrorCode {
    /// The HTTP status the server answers with.
    package var status: HTTPResponse.Status {
        switch self {
        case .store(let code):
            switch code {
            case .invalidLimit, .invalidToken, .invalidSegment, .invalidConfiguration: .badRequest
            case .unknownPartition: .notFound
            case .tokenMismatch: .conflict
            case .throttled: .tooManyRequests
            case .injectedFault: .serviceUnavailable
            }
        case .invalidParameter: .badRequest
        case .notFound: .notFound
        case .internalError: .internalServerError
        }
    }
}
