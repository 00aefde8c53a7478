import FuzzSupport
import JobrunCore
import JobrunReport
import JobrunJSON

// The input is a report file as `jobrun report merge` reads it. Whatever it holds, reading it
// never traps; what jobrun writes of a document that reads reads back; and merging it (twice, as
// two shards) and making its JUnit report never traps either.
fuzzerMain { data, size in
    guard case .success(let value) = JSONParser.parse(Array(fuzzInput(data, size))) else { return 0 }
    for pretty in [true, false] {
        // What jobrun writes reads back, and from then on stays as it is (a number the first
        // reading took in, 1e400 say, may be written differently once).
        guard case .success(let written) = JSONParser.parse(value.renderedBytes(pretty: pretty)),
            case .success(let again) = JSONParser.parse(written.renderedBytes(pretty: pretty))
        else {
            require(false, "a document jobrun wrote does not read back")
            return 0
        }
        require(again == written, "a document jobrun wrote changed when read and written again")
    }
    let merged = ShardMerge.merge([ShardMerge.Input(name: "a.json", document: value), ShardMerge.Input(name: "b.json", document: value)])
    _ = ShardMerge.junit(merged.document, timestamp: JUnitReport.Timestamp(secondsSince1970: 0), hostname: "fuzz").renderedBytes()
    return 0
}
