/// The pagebench version reported by `--version` and written into every CSV row's context.
package enum PagebenchVersion {
    package static let string = "0.1.0"
}
