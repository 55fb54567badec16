#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The transcendental functions pagebench uses (item sizes, service times, Zipf weights,
/// Poisson arrival gaps), in one place and by one rule: the platform's libm.
///
/// Why libm and not a series of our own: the store's item sizes and partition layouts
/// have always been computed with libm, so keeping it keeps every generated store (and
/// its configuration's data) exactly as it was; glibc's `exp` and `log` are accurate to
/// within an ulp and give the same bits on every x86-64 and arm64 Linux machine of the
/// same glibc. The harness's old hand-written series agreed with libm to ~1e-15 and fed
/// only Zipf weights and Poisson gaps, where a last-bit difference moves a seeded choice
/// only when a uniform draw lands within ~1e-16 of a boundary.
public enum Math {
    @inlinable
    public static func exp(_ x: Double) -> Double {
        #if canImport(Glibc)
        Glibc.exp(x)
        #else
        Darwin.exp(x)
        #endif
    }

    @inlinable
    public static func log(_ x: Double) -> Double {
        #if canImport(Glibc)
        Glibc.log(x)
        #else
        Darwin.log(x)
        #endif
    }

    /// `base^exponent` as `exp(exponent · ln base)`, exactly 1 for exponent 0.
    @inlinable
    public static func power(_ base: Double, _ exponent: Double) -> Double {
        exponent == 0 ? 1 : exp(exponent * log(base))
    }
}
