import FuzzSupport
import JobrunCore
@testable import JobrunFetch
@testable import JobrunRun

// The input is the header bytes of a transfer as libcurl delivers them: one line per call, each
// ending in LF (the last one may not). Every head the parser completes goes through what
// the run does with a response head: the 200/206 check (as a fresh fetch and as a resume with
// a validator), Content-Range, Retry-After and HTTP-dates. None may trap.
let now: Int64 = 1_767_225_600

fuzzerMain { data, size in
    let input = fuzzInput(data, size)
    var parser = ResponseHeadParser()
    var start = 0
    while start < input.count {
        var end = start
        while end < input.count, input[end] != 0x0A { end += 1 }
        if end < input.count { end += 1 }
        if let head = parser.feed(UnsafeRawBufferPointer(rebasing: input[start..<end])) { exercise(head) }
        start = end
    }
    return 0
}

func exercise(_ head: ResponseHead) {
    require(head.status >= 200 && head.status <= 999, "a head completed with status \(head.status)")
    _ = head.hasDelimitedBody
    let learned = Representation(validator: Representation.validator(of: head), total: ByteCount(1 << 20))
    let checks = [
        ResponseCheck(resumeOffset: 0, resumeValidator: nil, expectedSize: nil, cap: .max, learned: nil),
        ResponseCheck(
            resumeOffset: 1, resumeValidator: .init(value: "\"v1\"", kind: .etag), expectedSize: ByteCount(1 << 20), cap: ByteCount(1 << 30), learned: learned),
        ResponseCheck(
            resumeOffset: .max, resumeValidator: .init(value: "Sun, 06 Nov 1994 08:49:37 GMT", kind: .lastModified), expectedSize: .max, cap: 0, learned: nil),
    ]
    for check in checks {
        if case .success(let accepted) = check.check(head) {
            require(accepted.offset == 0 || accepted.offset == check.resumeOffset, "accepted at offset \(accepted.offset)")
            if let end = accepted.end { require(end >= accepted.offset, "a body ending at \(end) before its offset \(accepted.offset)") }
        }
    }
    for field in head.headers {
        if let range = ContentRange(field.value) {
            require(range.start <= range.end, "Content-Range \(range.start)-\(range.end)")
        }
        if let delay = RetryAfter.delay(field.value, now: now) {
            require(delay >= .zero, "a negative Retry-After delay")
        }
        _ = HTTPDate.parse(field.value)
    }
}
