/// The pagebench version reported by `--version` and written into every CSV row's context.
public enum PagebenchVersion {
    public static let string = "0.1.0"
}
