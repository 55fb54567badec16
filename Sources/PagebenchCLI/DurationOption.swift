import ArgumentParser
import PagebenchHarness

/// The `transform` of every duration flag (`--duration 2s`, `--warmup 500ms`, `--step-duration 1`):
/// ``DurationArgument/seconds(_:flag:)``, its error a usage error (exit 64) naming the flag.
enum DurationOption {
    static func seconds(_ flag: String) -> @Sendable (String) throws -> Double {
        { text in
            do {
                return try DurationArgument.seconds(text, flag: flag)
            } catch let error as HarnessError {
                throw ValidationError(error.message)
            }
        }
    }
}

/// The `transform` of every rate flag (`knee --from 500/s`): ``RateArgument/drainsPerSecond(_:flag:)``.
enum RateOption {
    static func drainsPerSecond(_ flag: String) -> @Sendable (String) throws -> Double {
        { text in
            do {
                return try RateArgument.drainsPerSecond(text, flag: flag)
            } catch let error as HarnessError {
                throw ValidationError(error.message)
            }
        }
    }
}
