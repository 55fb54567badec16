/// A JUnit XML report (the Ant/Jenkins schema CI systems read: GitHub, GitLab, Jenkins):
/// one `<testsuite>` of `<testcase>`s, each passed, failed (`<failure>`) or skipped
/// (`<skipped>`). The one writer of the format in pagebench (`verify --format junit`).
public struct JUnitXML: Sendable {
    /// One test case's outcome.
    public enum Outcome: Sendable, Hashable {
        case passed
        /// Failed: a one-line message and the details (the evidence).
        case failed(message: String, details: String)
        /// Neither passed nor failed: why.
        case skipped(message: String)
    }

    /// One test case.
    public struct TestCase: Sendable, Hashable {
        public var name: String
        public var className: String
        public var seconds: Double
        public var outcome: Outcome
        /// Shown as `<system-out>` (what was checked), when not empty.
        public var output: String

        public init(name: String, className: String, seconds: Double = 0, outcome: Outcome, output: String = "") {
            self.name = name
            self.className = className
            self.seconds = seconds
            self.outcome = outcome
            self.output = output
        }
    }

    public var suiteName: String
    public var cases: [TestCase]
    /// The whole suite's time in seconds.
    public var seconds: Double

    public init(suiteName: String, cases: [TestCase], seconds: Double) {
        self.suiteName = suiteName
        self.cases = cases
        self.seconds = seconds
    }

    /// The document, UTF-8 XML with a trailing newline.
    public var text: String {
        let failures = cases.filter { if case .failed = $0.outcome { true } else { false } }.count
        let skipped = cases.filter { if case .skipped = $0.outcome { true } else { false } }.count
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let suite =
            "name=\"\(Self.escaped(suiteName))\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" time=\"\(NumberText.fixed(seconds, 3))\""
        xml += "<testsuites \(suite)>\n<testsuite \(suite)>\n"
        for test in cases {
            xml +=
                "<testcase name=\"\(Self.escaped(test.name))\" classname=\"\(Self.escaped(test.className))\" time=\"\(NumberText.fixed(test.seconds, 3))\""
            let output = test.output.isEmpty ? "" : "<system-out>\(Self.escaped(test.output))</system-out>"
            switch test.outcome {
            case .passed where output.isEmpty:
                xml += "/>\n"
                continue
            case .passed:
                xml += ">"
            case .failed(let message, let details):
                xml += "><failure message=\"\(Self.escaped(message))\" type=\"broken\">\(Self.escaped(details))</failure>"
            case .skipped(let message):
                xml += "><skipped message=\"\(Self.escaped(message))\"/>"
            }
            xml += output + "</testcase>\n"
        }
        xml += "</testsuite>\n</testsuites>\n"
        return xml
    }

    /// `text` escaped for XML content and attribute values; characters XML 1.0 cannot hold
    /// (controls other than tab, newline, carriage return) become `\u{XX}` text.
    public static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            case "\r": result += "&#13;"
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    result += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
