/// A JUnit XML report: the value model that ``render()`` turns into XML.
///
/// The rendered shape is a public contract. It validates against both the Apache Ant schema
/// (windyroad `JUnit.xsd`, strict) and the Jenkins xUnit schema (`junit-10.xsd`, lenient):
///
///     <testsuites>                      no attributes: the Ant schema allows none
///       <testsuite name package id timestamp hostname tests failures errors skipped time>
///         <properties>…</properties>    always present, possibly empty
///         <testcase classname name time>[<failure|error|skipped/>]</testcase>
///         <system-out>…</system-out>    always present, possibly empty
///         <system-err>…</system-err>    always present, possibly empty
///
/// Suites and test cases render in the order given; callers sort them so equal runs give
/// byte-identical reports. Counts are computed from the test cases, never stored.
public struct JUnitReport: Hashable, Sendable {
    public var suites: [Suite]

    public init(suites: [Suite] = []) {
        self.suites = suites
    }

    /// The same report with every suite and test case time zero: what a reproducible report
    /// (`SOURCE_DATE_EPOCH`) holds, since measured times differ from run to run.
    public func withoutTimes() -> JUnitReport {
        var copy = self
        for s in copy.suites.indices {
            copy.suites[s].time = .zero
            for c in copy.suites[s].testCases.indices { copy.suites[s].testCases[c].time = .zero }
        }
        return copy
    }

    /// One `<testsuite>`. Its `id` attribute is its index in ``JUnitReport/suites``.
    public struct Suite: Hashable, Sendable {
        /// Rendered as `(unnamed)` when blank: the Ant schema requires a non-empty token.
        public var name: String
        /// The Ant `package` attribute; the suite name when `nil`.
        public var package: String?
        /// When the suite started, in UTC.
        public var timestamp: Timestamp
        /// Rendered as `unknown` when blank: the Ant schema requires a non-empty token.
        public var hostname: String
        /// Wall time of the whole suite; negative durations render as `0.000`.
        public var time: Duration
        public var properties: [Property]
        public var testCases: [TestCase]
        public var systemOut: String?
        public var systemErr: String?

        /// - Parameter time: the suite's wall time; the sum of the test case times when `nil`.
        public init(
            name: String,
            package: String? = nil,
            timestamp: Timestamp,
            hostname: String,
            time: Duration? = nil,
            properties: [Property] = [],
            testCases: [TestCase] = [],
            systemOut: String? = nil,
            systemErr: String? = nil
        ) {
            self.name = name
            self.package = package
            self.timestamp = timestamp
            self.hostname = hostname
            self.time = time ?? testCases.reduce(Duration.zero) { $0 + $1.time }
            self.properties = properties
            self.testCases = testCases
            self.systemOut = systemOut
            self.systemErr = systemErr
        }

        /// `tests`: every test case.
        public var testCount: Int { testCases.count }
        /// `failures`: test cases whose result is `.failure`.
        public var failureCount: Int { testCases.count { $0.result.isFailure } }
        /// `errors`: test cases whose result is `.error`.
        public var errorCount: Int { testCases.count { $0.result.isError } }
        /// `skipped`: test cases whose result is `.skipped`.
        public var skippedCount: Int { testCases.count { $0.result.isSkipped } }
    }

    /// One `<property name value/>` of a suite.
    public struct Property: Hashable, Sendable {
        /// Rendered as `(unnamed)` when blank: the Ant schema requires a non-empty token.
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// One `<testcase>`.
    public struct TestCase: Hashable, Sendable {
        public var classname: String
        public var name: String
        /// Negative durations render as `0.000`.
        public var time: Duration
        public var result: Result

        public init(classname: String, name: String, time: Duration, result: Result = .passed) {
            self.classname = classname
            self.name = name
            self.time = time
            self.result = result
        }

        /// How a test case ended; at most one child element, as the Ant schema requires.
        public enum Result: Hashable, Sendable {
            /// No child element.
            case passed
            /// `<failure type message>text</failure>`: the check ran and said no (digest mismatch, say).
            case failure(type: String, message: String, text: String)
            /// `<error type message>text</error>`: the check could not run (I/O error, say).
            case error(type: String, message: String, text: String)
            /// `<skipped message/>`: not started (a dependency failed, say).
            case skipped(message: String?)

            public var isFailure: Bool {
                if case .failure = self { true } else { false }
            }

            public var isError: Bool {
                if case .error = self { true } else { false }
            }

            public var isSkipped: Bool {
                if case .skipped = self { true } else { false }
            }
        }
    }
}
