import Testing
@testable import JobrunManifest

/// `--shard K/N` and `--shard auto` under Kubernetes and GitLab, and every way of getting them
/// wrong, each with its message.
@Suite struct ShardSpecTests {
    static func resolve(_ text: String, count: Int? = nil, _ environment: [String: String] = [:]) -> String {
        switch ShardSpec.resolve(text, count: count, environment: environment) {
        case .success(let spec): "\(spec)"
        case .failure(let problem): problem.description
        }
    }

    @Test func givenAsKOfN() {
        #expect(Self.resolve("0/4") == "0/4" && Self.resolve("3/4") == "3/4" && Self.resolve("0/1") == "0/1")
        #expect(Self.resolve("3/4", count: 4) == "3/4")
        #expect(Self.resolve("4/4") == "--shard 4/4: shard 4 is not one of 0 to 3")
        #expect(Self.resolve("1/0") == "--shard 1/0: the shard count must be from 1 to 100000, not 0")
        #expect(Self.resolve("1/4", count: 3) == "--shard 1/4 says 4 shards, --shard-count 3")
        for bad in ["", "1", "1/", "/4", "-1/4", "+1/4", "1/4/2", "a/4", "1.0/4", " 1/4"] {
            #expect(Self.resolve(bad) == "'\(bad)' is not K/N (shard K, 0-based, of N; for example 0/4) or auto", "\(bad)")
        }
    }

    /// A Kubernetes Indexed Job gives the index; the count is the Job's completions.
    @Test func autoUnderKubernetes() {
        #expect(Self.resolve("auto", count: 8, ["JOB_COMPLETION_INDEX": "5"]) == "5/8")
        #expect(
            Self.resolve("auto", ["JOB_COMPLETION_INDEX": "5"])
                == "--shard auto: JOB_COMPLETION_INDEX (Kubernetes) gives the index only: add --shard-count N, the Job's completions")
        #expect(Self.resolve("auto", count: 4, ["JOB_COMPLETION_INDEX": "4"]) == "--shard auto (JOB_COMPLETION_INDEX 4): shard 4 is not one of 0 to 3")
        #expect(Self.resolve("auto", count: 4, ["JOB_COMPLETION_INDEX": "x"]) == "--shard auto: JOB_COMPLETION_INDEX 'x' is not a whole number")
    }

    /// GitLab's `parallel:` counts from 1.
    @Test func autoUnderGitLab() {
        #expect(Self.resolve("auto", ["CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"]) == "0/3")
        #expect(Self.resolve("auto", ["CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "3"]) == "2/3")
        #expect(Self.resolve("auto", count: 3, ["CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "3"]) == "2/3")
        #expect(
            Self.resolve("auto", count: 2, ["CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"])
                == "--shard auto (GitLab CI_NODE_INDEX 1, CI_NODE_TOTAL 3) says 3 shards, --shard-count 2")
        #expect(
            Self.resolve("auto", ["CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "3"])
                == "--shard auto (GitLab CI_NODE_INDEX 0, CI_NODE_TOTAL 3): shard -1 is not one of 0 to 2")
        // Kubernetes first when both are set.
        #expect(Self.resolve("auto", count: 2, ["JOB_COMPLETION_INDEX": "1", "CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"]) == "1/2")
    }

    @Test func autoWithNothingToReadFrom() {
        #expect(
            Self.resolve("auto")
                == "--shard auto: neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) nor CI_NODE_INDEX and CI_NODE_TOTAL (GitLab's parallel:) is set; give --shard K/N"
        )
        #expect(Self.resolve("auto", count: 0) == "--shard-count must be from 1 to 100000, not 0")
    }
}
