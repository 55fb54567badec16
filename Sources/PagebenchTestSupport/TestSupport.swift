/// Helpers shared by the test suites (scripted page sources, manual clocks, temporary
/// directories). Test targets depend on this target instead of copying helpers.
package enum TestSupport {}
