import Foundation
import JobrunCore
import JobrunTestSupport
import Testing

@testable import JobrunManifest

/// `docs/manifest.schema.json` knows exactly the keys the decoder knows: each mapping the decoder
/// reads (``ManifestDecoder/keyTables``) is a `$defs` entry with those properties, each described,
/// and no other key allowed.
@Suite struct ManifestSchemaKeysTests {
    static func schema() throws -> [String: Any] {
        let root = try #require(SharedPaths.packageRoot(startingAt: #filePath))
        let data = try Data(contentsOf: URL(fileURLWithPath: root + "/docs/manifest.schema.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func everyMappingHasTheDecodersKeysAndNoOthers() throws {
        let schema = try Self.schema()
        #expect(schema["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        let defs = try #require(schema["$defs"] as? [String: Any])
        #expect(ManifestDecoder.keyTables.count == 15)
        for (name, keys) in ManifestDecoder.keyTables {
            let def = try #require(defs[name] as? [String: Any], "no $defs/\(name)")
            let properties = try #require(def["properties"] as? [String: Any], "$defs/\(name) has no properties")
            #expect(Set(properties.keys) == Set(keys), "$defs/\(name): the schema has \(properties.keys.sorted()), the decoder \(keys.sorted())")
            #expect(def["additionalProperties"] as? Bool == false, "$defs/\(name) allows other keys")
            for (key, value) in properties {
                let described = (value as? [String: Any])?["description"] as? String
                #expect(described?.isEmpty == false, "$defs/\(name)/properties/\(key) has no description")
            }
        }
        // The digests a slice may declare are the algorithms jobrun knows.
        #expect(DigestAlgorithm.allCases.allSatisfy { ManifestDecoder.sliceKeys.contains($0.rawValue) })
    }
}
