/// A JUnit XML report (the Ant/Jenkins schema CI systems read: GitHub, GitLab, Jenkins):
/// one `<testsuite>` of `<testcase>`s, each passed, failed (`<failure>`) or skipped
/// (`<skipped>`), every text through ``XMLText`` (the escaping `check --format junit` uses
/// too). `verify --format junit` writes it; only elements and attributes of Jenkins'
/// strictest schema (xunit's junit-10.xsd) are written: no `skipped` on `<testsuites>`.
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
        let name = XMLText.attribute(suiteName)
        let time = NumberText.fixed(seconds, 3)
        xml +=
            "<testsuites name=\"\(name)\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" time=\"\(time)\">\n"
        xml +=
            "<testsuite name=\"\(name)\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" time=\"\(time)\">\n"
        for test in cases {
            xml +=
                "<testcase name=\"\(XMLText.attribute(test.name))\" classname=\"\(XMLText.attribute(test.className))\" time=\"\(NumberText.fixed(test.seconds, 3))\""
            let output = test.output.isEmpty ? "" : "<system-out>\(XMLText.content(test.output))</system-out>"
            switch test.outcome {
            case .passed where output.isEmpty:
                xml += "/>\n"
                continue
            case .passed:
                xml += ">"
            case .failed(let message, let details):
                xml +=
                    "><failure message=\"\(XMLText.attribute(message))\" type=\"broken\">\(XMLText.content(details))</failure>"
            case .skipped(let message):
                xml += "><skipped message=\"\(XMLText.attribute(message))\"/>"
            }
            xml += output + "</testcase>\n"
        }
        xml += "</testsuite>\n</testsuites>\n"
        return xml
    }
}
